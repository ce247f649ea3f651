import { randomUUID } from 'node:crypto';
import type { Collection, Db } from 'mongodb';
import { z } from 'zod';
import { inTenant, isRsin } from './tenant';

/**
 * ZSDMS: the registrations a zaak can be transferred to (doelregistraties), configured by administrators through
 * `/admin/api/v1/doelregistraties` or at start through `ZGW_DOELREGISTRATIES`, read by the API (which checks a
 * transfer request against them) and by the transfer worker (which reaches an external target with the stored client
 * id and secret). One zod schema gives the validation, the type and the stored shape.
 */
export const DOELREGISTRATIES_COLLECTION = 'zsdms_doelregistraties';

const identificatie = z.string().trim().min(1).max(50);

/** A zaaktype of the source and the one it becomes in the target, both by identificatie. */
export const ZaaktypeKoppeling = z.object({
  bron: identificatie.describe('Identificatie van het zaaktype in deze registratie.'),
  doel: identificatie.describe('Identificatie van het zaaktype in de doelregistratie.'),
  afsluitResultaat: z
    .string()
    .trim()
    .min(1)
    .max(80)
    .optional()
    .describe('Omschrijving van het resultaattype van het bronzaaktype waarmee de bronzaak wordt afgesloten (nodig bij bron "afsluiten").'),
});

const url = z.string().url().max(1000);

const DoelregistratieFields = z
  .object({
    naam: z
      .string()
      .min(1)
      .max(100)
      .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'Letters, cijfers, punt, liggend streepje en underscore; de naam staat in URLs.'),
    route: z.enum(['intern', 'extern']).describe("intern: een organisatie op dit platform; extern: een ander ZGW-systeem over zijn API's."),
    rsin: z
      .string()
      .regex(/^\d{9}$/, 'Een RSIN bestaat uit 9 cijfers.')
      .describe('De doelorganisatie: bronorganisatie en verantwoordelijke organisatie van de kopie.'),
    tenant: z
      .string()
      .regex(/^\d{9}$/, 'Een RSIN bestaat uit 9 cijfers.')
      .optional()
      .describe('Route intern: de organisatie (tenant) op dit platform waar de zaak heen gaat; zonder: dezelfde organisatie.'),
    catalogus: url.describe('URL van de catalogus in de doelregistratie.'),
    zaaktypen: z.array(ZaaktypeKoppeling).min(1).max(1000),
    bron: z.enum(['afsluiten', 'openlaten']).describe('Wat er met de bronzaak gebeurt na de overdracht.'),
    zakenApi: url.optional(),
    catalogiApi: url.optional(),
    documentenApi: url.optional(),
    besluitenApi: url.optional(),
    clientId: z.string().min(1).max(255).optional(),
    secret: z
      .string()
      .min(8)
      .max(255)
      .optional()
      .describe('Wordt opgeslagen en nooit meer getoond; bij wijzigen weglaten om het bestaande te houden.'),
  })
  .strict();

/** The API base URLs and client id an external route needs (its secret is checked by whoever knows the stored one). */
const EXTERN_FIELDS = ['zakenApi', 'catalogiApi', 'documentenApi', 'besluitenApi', 'clientId'] as const;

export const Doelregistratie = DoelregistratieFields.superRefine((d, ctx) => {
  for (const f of EXTERN_FIELDS) {
    if (d.route === 'extern' && !d[f])
      ctx.addIssue({ code: 'custom', path: [f], message: 'Verplicht bij route extern.', params: { code: 'required' } });
    if (d.route === 'intern' && d[f]) ctx.addIssue({ code: 'custom', path: [f], message: 'Alleen bij route extern.', params: { code: 'invalid' } });
  }
  if (d.route === 'extern' && d.tenant)
    ctx.addIssue({ code: 'custom', path: ['tenant'], message: 'Alleen bij route intern.', params: { code: 'invalid' } });
  if (d.route === 'intern' && d.secret)
    ctx.addIssue({ code: 'custom', path: ['secret'], message: 'Alleen bij route extern.', params: { code: 'invalid' } });
  const seen = new Set<string>();
  d.zaaktypen.forEach((k, i) => {
    if (seen.has(k.bron))
      ctx.addIssue({ code: 'custom', path: ['zaaktypen', i, 'bron'], message: 'Dit bronzaaktype is al gekoppeld.', params: { code: 'unique' } });
    seen.add(k.bron);
    if (d.bron === 'afsluiten' && !k.afsluitResultaat) {
      ctx.addIssue({
        code: 'custom',
        path: ['zaaktypen', i, 'afsluitResultaat'],
        message: 'Verplicht als de bronzaak wordt afgesloten.',
        params: { code: 'required' },
      });
    }
  });
});

export type Doelregistratie = z.infer<typeof Doelregistratie>;

/**
 * As stored: keyed by naam; the secret stays in the store and leaves it only for the transfer worker. `uuid` is its
 * id within its tenant: a transfer names it by that id (a name can be deleted and made again, by another tenant too);
 * one stored before ids were given gets one on first use (doelregistratieId).
 */
export type StoredDoelregistratie = Omit<Doelregistratie, 'naam'> & { _id: string; uuid?: string; _created: Date; _updated: Date };

const RSIN = z.string().refine(isRsin, 'Een RSIN is negen cijfers die de elfproef doorstaan.');

/**
 * The id of a stored doelregistratie (its `uuid`), given now to one stored before ids were (run within its tenant):
 * the first to give one wins, every caller answers that one.
 */
export async function doelregistratieId(coll: Collection<StoredDoelregistratie>, reg: StoredDoelregistratie): Promise<string> {
  if (reg.uuid) return reg.uuid;
  await coll.updateOne({ _id: reg._id, uuid: { $exists: false } }, { $set: { uuid: randomUUID() } });
  const now = await coll.findOne({ _id: reg._id }, { projection: { uuid: 1 } });
  if (!now?.uuid) throw new Error(`doelregistratie ${reg._id} bestaat niet (meer)`);
  return now.uuid;
}

/**
 * A tenant's doelregistratie: by its id (a transfer's own reference) or, for a transfer that names only its naam
 * (started before ids were given), by naam; always within `tenant`, never another tenant's.
 */
export function findDoelregistratie(db: Db, tenant: string, ref: { id?: string; naam: string }): Promise<StoredDoelregistratie | null> {
  const coll = db.collection<StoredDoelregistratie>(DOELREGISTRATIES_COLLECTION);
  return inTenant(tenant, () => (ref.id ? coll.findOne({ uuid: ref.id }) : coll.findOne({ _id: ref.naam })));
}

/**
 * Consent between tenants (ZSDMS internal route): an organisation takes transfers only from the organisations it
 * names, its own setting (`/admin/api/v1/overdrachten/instellingen`), one document per tenant in this collection.
 */
export const OVERDRACHT_INSTELLINGEN_COLLECTION = 'zsdms_instellingen';
/** The kind of setting a document of OVERDRACHT_INSTELLINGEN_COLLECTION holds (one of each per tenant). */
export const OVERDRACHTEN_SOORT = 'overdrachten';

export const OverdrachtInstellingen = z
  .object({
    accepteertVan: z.array(RSIN).max(1000).describe('De organisaties (RSIN) van dit platform waarvan deze organisatie overdrachten aanneemt.'),
  })
  .strict();
export type OverdrachtInstellingen = z.infer<typeof OverdrachtInstellingen>;
export type StoredOverdrachtInstellingen = OverdrachtInstellingen & { _id: string; soort: string; _updated: Date };

/** Whether tenant `doel` takes transfers from tenant `bron` (its own always; another only when it names it). */
export async function accepteertOverdrachten(db: Db, doel: string, bron: string): Promise<boolean> {
  if (doel === bron) return true;
  const coll = db.collection<StoredOverdrachtInstellingen>(OVERDRACHT_INSTELLINGEN_COLLECTION);
  const instellingen = await inTenant(doel, () => coll.findOne({ soort: OVERDRACHTEN_SOORT }));
  return !!instellingen?.accepteertVan.includes(bron);
}

/**
 * The one answer to a transfer (or an internal route) naming an organisation that does not take transfers from the
 * sender: the same whether that organisation exists or not.
 */
export const NIET_GEACCEPTEERD = 'De doelorganisatie neemt geen overdrachten van deze organisatie aan (of is op dit platform niet bekend).';

/** What an administrator sees: never the secret, only whether one is stored. */
export function doelregistratieView(d: StoredDoelregistratie): Omit<Doelregistratie, 'secret'> & { secretOpgeslagen: boolean } {
  const { _id, secret, uuid: _uuid, ...rest } = d;
  // the store's own fields (`_created`, `_updated`, `_tenant`) and its id stay out
  const fields = Object.fromEntries(Object.entries(rest).filter(([k]) => !k.startsWith('_'))) as Omit<Doelregistratie, 'secret' | 'naam'>;
  return { naam: _id, ...fields, secretOpgeslagen: Boolean(secret) };
}

/** `ZGW_DOELREGISTRATIES`: a JSON array of doelregistraties, as the admin endpoint takes them (an external one with its secret). */
export function parseDoelregistratiesEnv(raw: string): Doelregistratie[] {
  if (!raw.trim()) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (e) {
    throw new Error(`ZGW_DOELREGISTRATIES is not JSON: ${(e as Error).message}`, { cause: e });
  }
  if (!Array.isArray(parsed)) throw new Error('ZGW_DOELREGISTRATIES must be a JSON array of doelregistraties');
  return parsed.map((item, i) => {
    const r = Doelregistratie.safeParse(item);
    if (!r.success) {
      const problems = r.error.issues.map((x) => `${x.path.join('.') || '(root)'}: ${x.message}`).join('; ');
      throw new Error(`ZGW_DOELREGISTRATIES[${i}] is not a valid doelregistratie: ${problems}`);
    }
    if (r.data.route === 'extern' && !r.data.secret)
      throw new Error(`ZGW_DOELREGISTRATIES[${i}] (${r.data.naam}): an external route needs its secret`);
    return r.data;
  });
}
