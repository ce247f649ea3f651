import type { Db } from 'mongodb';
import { ensureAudittrailIndex } from '../../common/platform/audittrail';
import { GenummerdeIdentificaties } from '../../common/storage/identificaties';
import { pull } from '../../common/storage/store';
import type { ComponentApi, ComponentDef } from '../../common/platform/component';
import { catalogiOf } from '../../common/platform/links';
import { References } from '../../common/platform/references';
import type { BrondatumSources } from './archief';
import { BEWARING_INDEXES } from './bewaring';
import { PART_LINKS, idsIn, partsOf, type Zaken } from './context';
import { refusedGeometry } from './geo';
import { registerAudittrail, registerZaakbesluiten, registerZaakeigenschappen, zaakbesluitLinks } from './nested';
import { registerKlantcontacten, registerZaakcontactmomenten, registerZaakinformatieobjecten, registerZaakverzoeken } from './onderdelen';
import { syncPartFacts } from './parts';
import { herbereken, volgt } from './herberekenen';
import { IDENTIFICATIE_FILTERS, registerRollen, registerZaakobjecten } from './rollen';
import { V151, VERSIONS, type ZaakDoc } from './schemas';
import { PII_FIELDS, PII_HASHES } from '../../common/resources/pii-fields';
import { registerResultaten, registerStatussen } from './statussen';
import { registerZaken } from './zaken';
import { registerZaaknotities } from './notities';
import { registerNummers } from './nummers';

/** Zaken API 1.5.1 (ZRC): zaken and their parts, on the zaaktypen of the Catalogi API. */
export const zaken: ComponentDef = {
  name: 'zaken',
  code: 'zrc',
  operationIds: 'retrieve',
  declaresContentType: true,
  heads: true,
  typeField: 'zaaktype',
  title: 'Zaken API',
  version: V151,
  versions: VERSIONS,
  audit: { bron: 'ZRC' },
  async register(api) {
    const catalogi = catalogiOf(api);
    const z = { api, catalogi, refs: new References(api.deps, catalogi) } as ZakenComponent;
    z.identificaties = new Identificaties(api.deps.db);
    z.brondatumSources = (zaak) => brondatumSources(z, zaak);
    z.zaken = registerZaken(z);
    // Lists restricted only by autorisaties are counted from these (see zaken.ts, list).
    z.zaken.store.countBy(['zaaktype', '_vertrouwelijkheid']);
    z.statussen = registerStatussen(z);
    z.resultaten = registerResultaten(z);
    z.rollen = registerRollen(z);
    z.zaakobjecten = registerZaakobjecten(z);
    z.zaakinformatieobjecten = registerZaakinformatieobjecten(z);
    z.klantcontacten = registerKlantcontacten(z);
    z.zaakcontactmomenten = registerZaakcontactmomenten(z);
    z.zaakverzoeken = registerZaakverzoeken(z);
    z.zaakeigenschappen = registerZaakeigenschappen(z);
    z.zaakbesluiten = registerZaakbesluiten(z);
    z.zaaknotities = registerZaaknotities(z);
    registerNummers(z);
    z.besluitLinks = zaakbesluitLinks(z, z.zaakbesluiten);
    registerAudittrail(z);
    keepZaakLinks(z);
    answerRefusedGeometries(api);
    api.deps.components.zaken = z;
    await ensureIndexes(z);
    // Repairs the maintained counts per authorisation bucket (a crash between a write and its count adjustment).
    let fixed = 0;
    for (const r of [
      z.zaken,
      z.statussen,
      z.resultaten,
      z.rollen,
      z.zaakobjecten,
      z.zaakinformatieobjecten,
      z.klantcontacten,
      z.zaakcontactmomenten,
      z.zaakverzoeken,
    ])
      fixed += await r.store.recount();
    if (fixed) api.deps.log.warn({ buckets: fixed }, 'zaken: corrected maintained counts');
  },
};

export type ZakenComponent = Zaken;

/** Zaak identificaties: `ZAAK-<year>-<number>`, one counter per bronorganisatie and year (see common/platform/identificaties). */
export class Identificaties extends GenummerdeIdentificaties {
  constructor(db: Db) {
    super(db, 'zaak_identificaties', 'ZAAK', { collection: 'zaken', organisatie: 'bronorganisatie' });
  }
}

function brondatumSources(z: Zaken, zaak: ZaakDoc & { _id?: string }): BrondatumSources {
  const ids = (field: (typeof PART_LINKS)[keyof typeof PART_LINKS]) => zaak[field] ?? [];
  return {
    zaak,
    refs: z.refs,
    // This platform's besluiten, documents and zaken are read in-process, anything else fetched.
    fetchJson: (url) => z.refs.json(url),
    hoofdzaak: async () => (zaak.hoofdzaak ? ((await z.zaken.byUrl(zaak.hoofdzaak)) ?? undefined) : undefined),
    eigenschappen: () => z.zaakeigenschappen.store.find(idsIn(ids(PART_LINKS.eigenschappen))),
    zaakobjecten: () => z.zaakobjecten.store.find(idsIn(ids(PART_LINKS.zaakobjecten))),
    relevanteZaken: async () => {
      const urls = (zaak.relevanteAndereZaken ?? []).map((r) => r.url);
      return z.zaken.store.find(idsIn(urls.map((u) => z.zaken.uuidOf(u)).filter(Boolean)));
    },
    besluiten: async () => {
      const links = await z.zaakbesluiten.store.find({ _zaakUuid: zaak._id });
      const out: object[] = [];
      for (const l of links) {
        const { status, body } = await z.refs.json(l.besluit);
        if (status === 200 && body && typeof body === 'object') out.push(body);
      }
      return out;
    },
  };
}

/**
 * Keeps hoofdzaak.deelzaken and the parts' authorisation copies in step with zaak writes, and a closed zaak's archiving
 * with its sources when a write to one stopped half way.
 */
function keepZaakLinks(z: Zaken): void {
  const def = z.zaken.def;
  // A new zaak has nothing to keep in step unless it is a deelzaak.
  def.followsCreate = (doc) => !!doc.hoofdzaak;
  def.afterWrite = async (stored, ctx, previous) => {
    const coll = z.zaken.store.raw;
    const oldHoofd = previous?.hoofdzaak ? z.zaken.uuidOf(previous.hoofdzaak) : undefined;
    const newHoofd = stored.hoofdzaak ? z.zaken.uuidOf(stored.hoofdzaak) : undefined;
    if (oldHoofd && oldHoofd !== newHoofd) await coll.updateOne({ _id: oldHoofd }, pull(PART_LINKS.deelzaken, stored._id));
    if (newHoofd && newHoofd !== oldHoofd) await coll.updateOne({ _id: newHoofd }, { $addToSet: { [PART_LINKS.deelzaken]: stored._id } });
    if (previous && previous.vertrouwelijkheidaanduiding !== stored.vertrouwelijkheidaanduiding) await syncPartFacts(z, stored);
    // (the follow-up sweep, for a closed zaak marked before a write to a source of its archiving: herberekenen.ts)
    if (!previous && volgt(stored)) await herbereken(z, stored._id, ctx.caller);
  };
  const after = def.afterDestroy;
  def.afterDestroy = async (current, ctx) => {
    const hoofd = current.hoofdzaak ? z.zaken.uuidOf(current.hoofdzaak) : undefined;
    if (hoofd) await z.zaken.store.raw.updateOne({ _id: hoofd }, pull(PART_LINKS.deelzaken, current._id));
    await after?.(current, ctx);
  };
}

/** An index for an exact-match filter on `field`, in list order (it also serves the filter's count). */
const byField = (...fields: string[]) => ({ key: { ...Object.fromEntries(fields.map((f) => [f, 1])), _created: 1, _id: 1 } });
/** Zaak list filters by equality (and `__isnull`), and by range (`__gt`, `__lt`, ...: after the list order, ESR). */
const ZAAK_EQ = [
  'identificatie',
  'bronorganisatie',
  'archiefnominatie',
  'archiefactiedatum',
  'archiefstatus',
  'startdatum',
  'registratiedatum',
  'einddatum',
  'einddatumGepland',
  'uiterlijkeEinddatumAfdoening',
];
const ZAAK_RANGE = [
  'archiefactiedatum',
  'startdatum',
  'registratiedatum',
  'einddatum',
  'einddatumGepland',
  'uiterlijkeEinddatumAfdoening',
  '_vertrouwelijkheid',
];
/** `ordering` values (each also after the zaaktype of an autorisatie, with its vertrouwelijkheid bound last). */
const ZAAK_ORDERING = ['startdatum', 'einddatum', 'publicatiedatum', 'archiefactiedatum', 'registratiedatum', 'identificatie'];

/** A geometry MongoDB refuses is a 400 on zaakgeometrie (on `_zoek`: its area); other errors go on to the app's handler. */
function answerRefusedGeometries(api: ComponentApi): void {
  api.app.setErrorHandler((err, req) => {
    throw refusedGeometry(err, req.routeOptions.url?.endsWith('/_zoek') ? 'zaakgeometrie.within' : 'zaakgeometrie') ?? err;
  });
}

async function ensureIndexes(z: Zaken): Promise<void> {
  await z.zaken.store.ensureIndexes([
    { key: { bronorganisatie: 1, identificatie: 1 }, unique: true, sparse: true },
    { key: { zaaktype: 1, _created: 1, _id: 1, _vertrouwelijkheid: 1 } },
    { key: { zaaktype: 1, _vertrouwelijkheid: 1 } },
    ...[...ZAAK_EQ, '_vertrouwelijkheid'].map((f) => byField(f)),
    // A day's zaken of one zaaktype in one organisation (how a transfer finds the copy it made).
    byField('zaaktype', 'bronorganisatie', 'startdatum'),
    ...ZAAK_RANGE.map((f) => ({ key: { _created: 1, _id: 1, [f]: 1 } })),
    // One zaaktype's (and one bronorganisatie's) zaken started within a range, in list order (what a limited
    // registration import reads elsewhere).
    { key: { zaaktype: 1, _created: 1, _id: 1, startdatum: 1 } },
    { key: { zaaktype: 1, bronorganisatie: 1, _created: 1, _id: 1, startdatum: 1 } },
    { key: { bronorganisatie: 1, _created: 1, _id: 1, startdatum: 1 } },
    // The zaken an archive tool destroys, in list order, and their count: archiefnominatie vernietigen, closed before
    // a date (`einddatum__isnull=False&einddatum__lt=`, Open Archiefbeheer's query; later runs add `einddatum__gt`).
    { key: { archiefnominatie: 1, _created: 1, _id: 1, einddatum: 1 } },
    { key: { archiefnominatie: 1, einddatum: 1 } },
    ...ZAAK_ORDERING.map((f) => ({ key: { [f]: 1, _id: 1 } })),
    ...ZAAK_ORDERING.map((f) => ({ key: { zaaktype: 1, [f]: 1, _id: 1, _vertrouwelijkheid: 1 } })),
    { key: { zaakgeometrie: '2dsphere' }, sparse: true },
    // `_zoek` on an area in list order.
    { key: { _created: 1, _id: 1, zaakgeometrie: '2dsphere' } },
  ]);
  // Authorised lists: the zaaktype of one autorisatie, the list order, then its vertrouwelijkheid bound.
  for (const p of partsOf(z)) {
    await p.store.ensureIndexes([
      byField('zaak'),
      { key: { _zaaktype: 1, _created: 1, _id: 1, _vertrouwelijkheid: 1 } },
      { key: { _zaaktype: 1, _vertrouwelijkheid: 1 } },
    ]);
  }
  // The zaken that name a zaak among their relevanteAndereZaken: their archiving follows its einddatum (herberekenen.ts).
  await z.zaken.store.ensureIndexes([byField('relevanteAndereZaken.url')]);
  // The zaken on legal hold and the archivist's worklist (bewaring.ts, admin/archief.ts).
  await z.zaken.store.ensureIndexes(BEWARING_INDEXES);
  await z.zaakeigenschappen.store.ensureIndexes([byField('_zaakUuid')]);
  await z.zaakbesluiten.store.ensureIndexes([byField('_zaakUuid')]);
  // Each list filter of each part (the rol filters also serve /zaken?rol__...).
  await z.statussen.store.ensureIndexes([byField('statustype'), byField('indicatieLaatstGezetteStatus'), byField('zaak', 'statustype')]);
  await z.resultaten.store.ensureIndexes([byField('resultaattype')]);
  await z.rollen.store.ensureIndexes([
    // the identifiers of a natural person by their search hashes (sealed at rest), the others as they are
    ...[...new Set(Object.values(IDENTIFICATIE_FILTERS).map(([, f]) => f))].map((f) =>
      byField('betrokkeneType', PII_FIELDS.has(f) ? `${PII_HASHES}.${f}` : `betrokkeneIdentificatie.${f}`),
    ),
    byField('betrokkeneType'),
    byField('betrokkene'),
    byField('roltype'),
    byField('omschrijving'),
    byField('omschrijvingGeneriek'),
  ]);
  await z.zaakobjecten.store.ensureIndexes([byField('object'), byField('objectType')]);
  // zaak with informatieobject: a link looked up before it is made (a transfer's copy, an idempotent client).
  await z.zaakinformatieobjecten.store.ensureIndexes([byField('informatieobject'), byField('zaak', 'informatieobject')]);
  await z.zaakcontactmomenten.store.ensureIndexes([byField('contactmoment')]);
  await z.zaakverzoeken.store.ensureIndexes([byField('verzoek')]);
  await z.zaaknotities.store.ensureIndexes(['notitieType', 'status', 'aangemaaktDoor', 'onderwerp'].map((f) => byField(f)));
  // The audit trail of a zaak, oldest first (the collection is written by the audit service).
  await ensureAudittrailIndex(z.api.deps.db);
}
