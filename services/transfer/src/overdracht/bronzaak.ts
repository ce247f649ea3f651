import { zgwUrl } from '@zgw/shared';
import * as A from '../common/antwoorden';
import { uuidOf, type Kant } from '../common/context';

/** A zaak with everything that belongs to it, read over the standard APIs of its system. */
export interface Zaakdossier {
  zaak: A.Zaak;
  rollen: A.Rol[];
  statussen: A.Status[];
  resultaat: A.Resultaat | null;
  eigenschappen: A.Zaakeigenschap[];
  objecten: A.Zaakobject[];
  klantcontacten: A.Klantcontact[];
  zios: A.Zaakinformatieobject[];
  besluiten: { besluit: A.Besluit; bios: A.Besluitinformatieobject[] }[];
}

export type Deel = 'rollen' | 'statussen' | 'resultaat' | 'eigenschappen' | 'objecten' | 'klantcontacten' | 'zios' | 'besluiten';
const ALLE: readonly Deel[] = ['rollen', 'statussen', 'resultaat', 'eigenschappen', 'objecten', 'klantcontacten', 'zios', 'besluiten'];

/**
 * Reads a zaak and its parts (statussen oldest first), or only the parts named (the others empty); documents are
 * read one by one where they are copied.
 */
export async function leesDossier(k: Kant, zaakUrl: string, delen: readonly Deel[] = ALLE): Promise<Zaakdossier> {
  const c = k.client;
  const zaak = await c.get(zaakUrl, A.Zaak);
  const q = { zaak: zaakUrl };
  const lees = <T>(deel: Deel, read: () => Promise<T>, leeg: T): Promise<T> => (delen.includes(deel) ? read() : Promise.resolve(leeg));
  const [rollen, statussen, eigenschappen, objecten, klantcontacten, zios, besluiten, resultaat] = await Promise.all([
    lees('rollen', () => c.all(zgwUrl(k.zaken, 'rollen', q), A.Rol), []),
    lees('statussen', () => c.all(zgwUrl(k.zaken, 'statussen', q), A.Status), []),
    lees('eigenschappen', () => c.all(zgwUrl(k.zaken, `zaken/${uuidOf(zaakUrl)}/zaakeigenschappen`), A.Zaakeigenschap), []),
    lees('objecten', () => c.all(zgwUrl(k.zaken, 'zaakobjecten', q), A.Zaakobject), []),
    lees('klantcontacten', () => c.all(zgwUrl(k.zaken, 'klantcontacten', q), A.Klantcontact), []),
    lees('zios', () => c.all(zgwUrl(k.zaken, 'zaakinformatieobjecten', q), A.Zaakinformatieobject), []),
    lees('besluiten', () => c.all(zgwUrl(k.besluiten, 'besluiten', q), A.Besluit), []),
    lees<A.Resultaat | null>('resultaat', async () => (zaak.resultaat ? c.get(zaak.resultaat, A.Resultaat) : null), null),
  ]);
  statussen.sort((a, b) => a.datumStatusGezet.localeCompare(b.datumStatusGezet));
  const metBios = await Promise.all(
    besluiten.map(async (besluit) => ({
      besluit,
      bios: await c.all(zgwUrl(k.besluiten, 'besluitinformatieobjecten', { besluit: besluit.url }), A.Besluitinformatieobject),
    })),
  );
  return { zaak, rollen, statussen, resultaat, eigenschappen, objecten, klantcontacten, zios, besluiten: metBios };
}

/** The statussen copied before the end: all of an open zaak; of a closed one all but its last (set last). */
export function eindstatusVan(d: Zaakdossier): A.Status | undefined {
  return d.zaak.einddatum ? d.statussen[d.statussen.length - 1] : undefined;
}

/** Only the named fields of an object (the writable fields of a ZGW resource), without undefined ones. */
export function pick<T extends object, K extends keyof T & string>(o: T, fields: readonly K[]): Partial<Pick<T, K>> {
  const out: Partial<Pick<T, K>> = {};
  for (const f of fields) if (o[f] !== undefined) out[f] = o[f];
  return out;
}

/** A stable text of the fields that identify a copied part, to find it again in the target (idempotent copies). */
export function vingerafdruk(o: object, fields: readonly string[]): string {
  const velden = new Map(Object.entries(o));
  return JSON.stringify(fields.map((f) => velden.get(f) ?? null));
}
