import type { z as zod } from 'zod';
import type { Resource, WriteContext } from '../../common/platform/resource';
import type { Stored } from '../../common/storage/store';
import { ZgwError } from '../../common/http/errors';
import { herzien, volgersHerberekenen } from './herberekenen';
import { AANMAKEN, GEFORCEERD, HEROPENEN, READ, STATUSSEN_TOEVOEGEN, UPDATE, idsIn, linkedIds, mayOnZaak, nonField, type Zaken } from './context';
import { registerPart } from './parts';
import {
  Resultaat,
  ResultaatInput,
  ResultaatQuery,
  Status,
  StatusInput,
  StatusQuery,
  type ResultaatDoc,
  type StatusDoc,
  type ZaakDoc,
} from './schemas';
import type { StatusTypeLink } from '../../common/platform/links';

/** Whether `statustype` is the eindstatus of its zaaktype: the one with the highest volgnummer. */
async function isEindstatus(z: Zaken, statustype: Stored<StatusTypeLink>): Promise<boolean> {
  const c = z.catalogi;
  const last = await c.api.cached(`eindstatustype:${statustype.zaaktype}`, async () => {
    const [doc] = await c.statustypen.store.find({ zaaktype: statustype.zaaktype }, { sort: { volgnummer: -1 }, limit: 1 });
    return doc?._id ?? null;
  });
  return last === statustype._id;
}

export function registerStatussen(z: Zaken): Resource<StatusDoc> {
  return registerPart<StatusDoc, zod.output<typeof StatusQuery>>(z, {
    in17: 'Status',
    // 1.7's create answer (StatusRequestbody) has no zaakinformatieobjecten.
    declared17: { created: Status.omit({ zaakinformatieobjecten: true }).meta({ id: 'StatusRequestbody' }) },
    collection: 'statussen',
    resource: 'status',
    schema: Status,
    input: StatusInput,
    query: StatusQuery,
    scopes: { read: READ, create: [AANMAKEN, STATUSSEN_TOEVOEGEN, HEROPENEN], update: [], destroy: [] },
    operations: ['list', 'create', 'read'],
    closedNeedsForce: false,
    defaults: { statustoelichting: '', gezetdoor: '' },
    exact: ['statustype'],
    filter: (q) => (q.indicatieLaatstGezetteStatus ? { indicatieLaatstGezetteStatus: q.indicatieLaatstGezetteStatus === 'true' } : {}),
    rules: async (doc, zaak, ctx) => {
      const statustype = await z.refs.mustCatalogus('statustypen', 'statustype', doc.statustype);
      if (statustype.zaaktype !== zaak.zaaktype) throw nonField('zaaktype-mismatch', 'Het statustype hoort niet bij het zaaktype van de zaak.');
      const eind = await isEindstatus(z, statustype);
      // (history: the import brings a zaak's documents after its statussen)
      if (eind && !ctx.historie) await mustHaveGebruiksrechten(z, zaak);
      // A closed zaak gets another eindstatus only with geforceerd-bijwerken, and is reopened only with heropenen.
      if (zaak.einddatum && !mayOnZaak(ctx.caller, zaak, [eind ? GEFORCEERD : HEROPENEN])) {
        throw ZgwError.forbidden(
          eind ? 'De zaak is afgesloten; dit vereist zaken.geforceerd-bijwerken.' : 'Een zaak heropenen vereist de scope zaken.heropenen.',
        );
      }
      if (doc.gezetdoor) {
        const rol = await z.rollen.byUrl(doc.gezetdoor);
        if (!rol || rol.zaak !== doc.zaak) throw ZgwError.field('gezetdoor', 'bad-url', 'gezetdoor moet een rol van deze zaak zijn.');
      }
      return { ...doc, _eind: eind, indicatieLaatstGezetteStatus: true };
    },
    // history keeps whether its source calls a status its zaak's last one: one it does not call so has nothing to follow
    behouden: (source) =>
      typeof source.indicatieLaatstGezetteStatus === 'boolean' ? { indicatieLaatstGezetteStatus: source.indicatieLaatstGezetteStatus } : {},
    followsCreate: (doc, ctx) => !ctx.historie || doc.indicatieLaatstGezetteStatus || !!doc.gezetdoor,
    afterWrite: async (stored, zaak, ctx) => {
      const rolId = stored.gezetdoor ? z.rollen.uuidOf(stored.gezetdoor) : undefined;
      // (different documents: side by side)
      await Promise.all([
        rolId ? z.rollen.store.followUp({ _id: rolId }, { $addToSet: { _statussen: stored._id } }) : undefined,
        ctx.historie && !stored.indicatieLaatstGezetteStatus ? undefined : laatsteStatus(z, stored, zaak, ctx),
      ]);
    },
    render: (doc) => ({
      uuid: doc._id,
      zaakinformatieobjecten: (doc._zaakinformatieobjecten ?? []).map((id) => z.zaakinformatieobjecten.url(id)),
    }),
  });
}

export function registerResultaten(z: Zaken): Resource<ResultaatDoc> {
  return registerPart<ResultaatDoc, zod.output<typeof ResultaatQuery>>(z, {
    in17: 'Resultaat',
    collection: 'resultaten',
    resource: 'resultaat',
    schema: Resultaat,
    input: ResultaatInput,
    query: ResultaatQuery,
    scopes: { read: READ, create: UPDATE, update: UPDATE, destroy: UPDATE },
    operations: ['list', 'create', 'read', 'update', 'partial_update', 'destroy'],
    defaults: { toelichting: '' },
    exact: ['resultaattype'],
    // (what a closed zaak derives of its archiving follows its resultaat: herberekenen.ts)
    archiefbron: true,
    rules: async (doc, zaak, _ctx, current) => {
      if (!current && zaak._resultaat) throw ZgwError.field('zaak', 'unique', 'De zaak heeft al een resultaat.');
      const resultaattype = await z.refs.mustCatalogus('resultaattypen', 'resultaattype', doc.resultaattype);
      if (resultaattype.zaaktype !== zaak.zaaktype) throw nonField('zaaktype-mismatch', 'Het resultaattype hoort niet bij het zaaktype van de zaak.');
      return doc;
    },
    afterWrite: async (stored, zaak, _ctx, previous) => {
      if (!previous) await z.zaken.store.followUp({ _id: zaak._id }, { $set: { _resultaat: stored._id } });
    },
    afterDestroy: async (current) => {
      await z.zaken.store.raw.updateOne({ _id: current._zaakUuid }, { $set: { _resultaat: null } });
    },
    render: (doc) => ({ uuid: doc._id }),
  });
}

/** A new status its zaak's last one (the latest datumStatusGezet): the zaak names it, the one before it is no longer. */
async function laatsteStatus(z: Zaken, stored: Stored<StatusDoc>, zaak: Stored<ZaakDoc>, ctx: WriteContext): Promise<void> {
  const current = zaak._status ? await z.statussen.store.get(zaak._status) : null;
  if (current && stored.datumStatusGezet < current.datumStatusGezet) {
    await z.statussen.store.followUp({ _id: stored._id }, { $set: { indicatieLaatstGezetteStatus: false } });
    return;
  }
  // history keeps the zaak's einddatum and archiving as its source has them
  const set: Partial<ZaakDoc> = { _status: stored._id, ...(ctx.historie ? {} : await eindeVan(stored, zaak, z)) };
  await Promise.all([
    // (run again after a crash, the zaak may name this status already: it stays the last one set)
    current && current._id !== stored._id
      ? z.statussen.store.followUp({ _id: current._id }, { $set: { indicatieLaatstGezetteStatus: false } })
      : undefined,
    z.zaken.store.followUp({ _id: zaak._id }, { $set: set }),
  ]);
  // the einddatum of a hoofdzaak or a relevante andere zaak is a source of the archiving of others (run again after a
  // crash, as this is, the closing is done again: reopening is not)
  if (!ctx.historie && (stored._eind || zaak.einddatum)) await volgersHerberekenen(z, zaak, ctx.caller);
}

/**
 * What a new current status sets on its zaak: closed by the eindstatus (with its archiving, which follows its sources
 * from then on: herberekenen.ts), else open again, without the archiving derived on closing.
 */
async function eindeVan(status: Stored<StatusDoc>, zaak: Stored<ZaakDoc>, z: Zaken): Promise<Partial<ZaakDoc>> {
  if (status._eind) {
    const einddatum = status.datumStatusGezet.slice(0, 10);
    return { einddatum, ...(await herzien(z, { ...zaak, einddatum })) };
  }
  if (!zaak.einddatum) return {};
  const bewaartermijn = zaak._archief?.includes('startdatumBewaartermijn') ? { startdatumBewaartermijn: null } : {};
  return { einddatum: null, archiefactiedatum: null, archiefnominatie: null, ...bewaartermijn, _archief: null };
}

/**
 * zrc-007: a zaak is closed only when each of its informatieobjecten says whether usage rights apply
 * (`indicatieGebruiksrecht` not null).
 */
async function mustHaveGebruiksrechten(z: Zaken, zaak: Stored<ZaakDoc>): Promise<void> {
  const zios = await z.zaakinformatieobjecten.store.find(idsIn(linkedIds(zaak, 'zaakinformatieobjecten')));
  for (const zio of zios) {
    const { status, body } = await z.refs.informatieobject(zio.informatieobject);
    if (status === 200 && body && typeof body === 'object' && 'indicatieGebruiksrecht' in body && body.indicatieGebruiksrecht === null) {
      throw nonField(
        'indicatiegebruiksrecht-unset',
        `Het informatieobject ${zio.informatieobject} heeft geen indicatieGebruiksrecht; zet die voor de zaak wordt afgesloten.`,
      );
    }
  }
}
