import { randomUUID } from 'node:crypto';
import type { Collection } from 'mongodb';
import { z } from 'zod';
import { STANDAARD_STAPPEN, vandaag, type VernietigingInstellingenDoc } from '@zgw/shared';
import type { Deps } from '../../common/platform/component';
import { ZgwError } from '../../common/http/errors';
import { parseOrThrow } from '../../common/http/validation';
import type { Zaken } from '../../components/zaken/context';

export const SOORT = 'vernietiging';

const naam = z.string().trim().min(1).max(100);

/** The settings as sent with `PUT /admin/api/v1/vernietigingslijsten/instellingen`. */
export const InstellingenInput = z
  .object({
    stappen: z
      .array(z.object({ naam, beoordelaars: z.array(z.string().trim().min(1).max(200)).max(100).default([]) }).strict())
      .min(1)
      .max(10)
      .refine((s) => new Set(s.map((x) => x.naam)).size === s.length, { message: 'Elke stap heeft een eigen naam.', params: { code: 'unique' } })
      .describe('De beoordelingsstappen, in volgorde; per stap wie hem mag beoordelen (client ids of gebruikers; leeg: elke beheerder).'),
    verklaringZaak: z
      .string()
      .url()
      .max(1000)
      .nullable()
      .default(null)
      .describe('De zaak (van een blijvend_bewaren zaaktype) die de verklaringen bewaart.'),
    verklaringInformatieobjecttype: z.string().url().max(1000).nullable().default(null).describe('Het informatieobjecttype van de verklaringen.'),
  })
  .strict();

export interface Instellingen {
  stappen: { naam: string; beoordelaars: string[] }[];
  verklaringZaak: string | null;
  verklaringInformatieobjecttype: string | null;
}

export const instellingenVan = (coll: Collection<VernietigingInstellingenDoc>) => async (): Promise<Instellingen> => {
  const d = await coll.findOne({ soort: SOORT });
  return {
    stappen: d?.stappen?.length ? d.stappen : STANDAARD_STAPPEN,
    verklaringZaak: d?.verklaringZaak ?? null,
    verklaringInformatieobjecttype: d?.verklaringInformatieobjecttype ?? null,
  };
};

/**
 * Checks and stores an organisation's settings of destruction lists: the review steps, and where the verklaring van
 * vernietiging goes: a zaak of this organisation whose zaaktype only keeps (every resultaattype blijvend_bewaren), so
 * it never comes on a list itself, and a document type that zaaktype allows.
 */
export async function bewaarInstellingen(deps: Deps, coll: Collection<VernietigingInstellingenDoc>, body: unknown): Promise<void> {
  const input = parseOrThrow(InstellingenInput, body ?? {});
  if (!!input.verklaringZaak !== !!input.verklaringInformatieobjecttype)
    throw ZgwError.field('verklaringInformatieobjecttype', 'required', 'Geef de zaak en het informatieobjecttype van de verklaring samen.');
  if (input.verklaringZaak) await toetsVerklaringZaak(deps, input.verklaringZaak, input.verklaringInformatieobjecttype!);
  const set = {
    stappen: input.stappen,
    verklaringZaak: input.verklaringZaak,
    verklaringInformatieobjecttype: input.verklaringInformatieobjecttype,
    _updated: new Date(),
  };
  const write = () => coll.updateOne({ soort: SOORT }, { $set: set, $setOnInsert: { _id: randomUUID() } }, { upsert: true });
  try {
    await write();
  } catch (err) {
    // two first writes at once: the other one made the document, this one changes it
    if ((err as { code?: number }).code !== 11000) throw err;
    await write();
  }
}

async function toetsVerklaringZaak(deps: Deps, url: string, iot: string): Promise<void> {
  const zaken = deps.components.zaken as unknown as Zaken | undefined;
  const catalogi = deps.components.catalogi;
  if (!zaken || !catalogi) throw new ZgwError(503, 'unavailable', 'De Zaken- en Catalogi API zijn niet geladen.');
  const zaak = await zaken.zaken.byUrl(url);
  if (!zaak) throw ZgwError.field('verklaringZaak', 'does_not_exist', 'Deze zaak bestaat niet.');
  const typen = await catalogi.resultaattypen.store.find({ zaaktype: zaak.zaaktype });
  const bewaart = typen.length > 0 && typen.every((rt) => rt.archiefnominatie === 'blijvend_bewaren');
  if (!bewaart || zaak.archiefnominatie === 'vernietigen')
    throw ZgwError.field(
      'verklaringZaak',
      'geen-blijvend-bewaren',
      'De zaak moet van een zaaktype zijn waarvan elk resultaattype archiefnominatie blijvend_bewaren heeft.',
    );
  if (!(await catalogi.informatieobjecttypenOn(zaak.zaaktype, vandaag())).includes(iot))
    throw ZgwError.field('verklaringInformatieobjecttype', 'niet-bij-zaaktype', 'Het zaaktype van de zaak kent dit informatieobjecttype niet.');
}
