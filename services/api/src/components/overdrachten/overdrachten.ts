import type { z } from 'zod';
import type { Document, Filter } from 'mongodb';
import {
  DOELREGISTRATIES_COLLECTION,
  EINDSTATUSSEN,
  NIET_GEACCEPTEERD,
  accepteertOverdrachten,
  currentTenant,
  doelregistratieId,
  Voortgang,
  traced,
  type OverdrachtOpdracht,
  type Richting,
  type StoredDoelregistratie,
} from '@zgw/shared';
import type { Caller } from '../../common/auth/auth';
import { UuidParams } from '../../common/platform/component';
import { ZgwError } from '../../common/http/errors';
import { Resource } from '../../common/platform/resource';
import type { Stored } from '../../common/storage/store';
import { vertrouwelijkheidRank } from '../../common/auth/vertrouwelijkheid';
import { authFilter, mayOnZaak } from '../../common/platform/zaak-rechten';
import { LEZEN, OVERDRAGEN, type Overdrachten } from './context';
import { Overdracht, OverdrachtInput, OverdrachtQuery, type OverdrachtAuth, type OverdrachtDoc } from './schemas';

/** Where an overdracht keeps the authorisation facts of its zaak (reading needs zaken.lezen for that zaak). */
const AUTH_FIELDS = { zaaktype: '_zaaktype', rank: '_vertrouwelijkheid' } as const;
export const OVERDRACHT_FILTERS = ['status', 'zaak', 'doelregistratie'] as const;

/** The list filters of the overdrachten (status, zaak, doelregistratie) that a query sets, as one condition. */
export function filtersOf(q: Partial<Record<(typeof OVERDRACHT_FILTERS)[number], string>>): Filter<Document> {
  const f: Filter<Document> = {};
  for (const k of OVERDRACHT_FILTERS) if (q[k] !== undefined && q[k] !== '') f[k] = q[k];
  return f;
}

export function registerOverdrachten(o: Overdrachten): Resource<OverdrachtDoc> {
  const overdrachten: Resource<OverdrachtDoc> = new Resource<OverdrachtDoc, z.output<z.ZodObject>, z.output<typeof OverdrachtQuery>>(o.api, {
    collection: 'overdrachten',
    resource: 'overdracht',
    schema: Overdracht,
    input: OverdrachtInput,
    query: OverdrachtQuery,
    scopes: { read: [LEZEN], create: [OVERDRAGEN], update: [], destroy: [] },
    operations: ['list', 'read'],
    kanaal: 'overdrachten',
    kenmerken: (doc) => ({
      bronorganisatie: doc._bronorganisatie ?? '',
      doelregistratie: doc.doelregistratie,
      status: doc.status,
    }),
    visible: (doc, caller) => caller.all || mayRead(caller, doc),
    // The autorisaties beside the filters (one condition object, as every list here does: index-served).
    filter: (q, caller) => ({ ...authFilter(caller, AUTH_FIELDS), ...filtersOf(q) }),
    sort: { _created: -1, _id: -1 },
    render: (doc) => ({ uuid: doc._id }),
  });
  registerCreate(o, overdrachten);
  registerVoortgang(o, overdrachten);
  return overdrachten;
}

function mayRead(caller: Caller, doc: OverdrachtDoc): boolean {
  return (caller.rights.autorisaties ?? []).some(
    (a) =>
      a.component === 'zrc' &&
      a.scopes.includes(LEZEN) &&
      a.zaaktype === doc._zaaktype &&
      vertrouwelijkheidRank(a.maxVertrouwelijkheidaanduiding ?? 'openbaar') >= doc._vertrouwelijkheid,
  );
}

/**
 * `POST /overdrachten`: who may ask is answered at once (a zaak URL that is not one of ours: 400 `bad-url`; no
 * `zaken.overdragen` for its zaaktype: 403; an unknown doelregistratie: 400; an internal route to another organisation
 * that does not take transfers from this one: 400 `not_accepted`); everything that depends on the data and the target
 * is the workflow's, which ends `geweigerd` with a code when it refuses. The overdracht keeps the doelregistratie's id:
 * the workflow finds it by that, within this tenant.
 */
function registerCreate(o: Overdrachten, overdrachten: Resource<OverdrachtDoc>): void {
  const log = o.api.deps.log;
  o.api.route({
    method: 'POST',
    path: '/overdrachten',
    operationId: 'overdracht_create',
    summary: 'Draag een zaak over aan een doelregistratie.',
    scopes: [OVERDRAGEN],
    body: OverdrachtInput,
    response: Overdracht,
    handler: async ({ req, caller, body }) => {
      const zaken = o.api.deps.components.zaken!;
      const uuid = zaken.zaken.uuidOf(body.zaak);
      const zaak = uuid ? await zaken.zaken.store.get(uuid) : null;
      if (!zaak) {
        log.info({ ...traced(body.zaak), clientId: caller.clientId }, 'overdracht geweigerd: de zaak bestaat niet op dit platform (400)');
        throw ZgwError.field('zaak', 'bad-url', `De zaak ${body.zaak} bestaat niet op dit platform.`);
      }
      const identificatie = String(zaak.identificatie);
      if (!mayOnZaak(caller, zaak, [OVERDRAGEN])) {
        log.info({ ...traced(identificatie), clientId: caller.clientId }, 'overdracht geweigerd: de client mag deze zaak niet overdragen (403)');
        throw ZgwError.forbidden(`Overdragen vereist de scope ${OVERDRAGEN} voor het zaaktype van de zaak.`);
      }
      const registraties = o.api.deps.db.collection<StoredDoelregistratie>(DOELREGISTRATIES_COLLECTION);
      const doel = await registraties.findOne({ _id: body.doelregistratie });
      if (!doel) {
        log.info({ ...traced(identificatie), clientId: caller.clientId }, 'overdracht geweigerd: onbekende doelregistratie (400)');
        throw ZgwError.field('doelregistratie', 'does_not_exist', `Er is geen doelregistratie "${body.doelregistratie}".`);
      }
      const tenant = currentTenant() ?? o.api.deps.tenants.defaultTenant;
      if (doel.route === 'intern' && doel.tenant && !(await accepteertOverdrachten(o.api.deps.db, doel.tenant, tenant))) {
        log.info(
          { ...traced(identificatie), clientId: caller.clientId },
          'overdracht geweigerd: de doelorganisatie neemt geen overdrachten van deze organisatie aan (400)',
        );
        throw ZgwError.field('doelregistratie', 'not_accepted', NIET_GEACCEPTEERD);
      }
      const richting: Richting = doel.route === 'intern' ? 'intern' : 'uit';
      const doc = newOverdracht(
        { ...body, zaakIdentificatie: identificatie, richting, doelregistratieId: await doelregistratieId(registraties, doel) },
        {
          _zaaktype: String(zaak.zaaktype),
          _vertrouwelijkheid: vertrouwelijkheidRank(String(zaak.vertrouwelijkheidaanduiding)),
          _bronorganisatie: String(zaak.bronorganisatie),
        },
      );
      return o.begin(overdrachten, doc, caller, req);
    },
  });
}

export interface NieuweOverdracht {
  zaak: string;
  zaakIdentificatie: string;
  doelregistratie: string;
  /** The doelregistratie's id within the tenant (StoredDoelregistratie.uuid). */
  doelregistratieId: string;
  richting: Richting;
  toelichting?: string;
  antwoordUrl?: string;
}

/** A new overdracht as stored: `ontvangen`, its first step begun and ended at once. */
export function newOverdracht(n: NieuweOverdracht, auth: OverdrachtAuth): OverdrachtDoc {
  const now = new Date().toISOString();
  return {
    zaak: n.zaak,
    zaakIdentificatie: n.zaakIdentificatie,
    doelregistratie: n.doelregistratie,
    richting: n.richting,
    toelichting: n.toelichting ?? '',
    antwoordUrl: n.antwoordUrl ?? null,
    status: 'ontvangen',
    stappen: [{ stap: 'ontvangen', start: now, einde: now, toelichting: '' }],
    doelZaak: null,
    weigering: null,
    fout: '',
    workflowId: '',
    aanmaakdatum: now,
    _gestart: false,
    _doelregistratie: n.doelregistratieId,
    ...auth,
  };
}

/** The workflow's input for a stored overdracht (retry settings from the configuration at the time of starting). */
export function opdrachtOf(o: Overdrachten, doc: Stored<OverdrachtDoc>, url: string): OverdrachtOpdracht {
  const c = o.api.deps.config;
  return {
    overdracht: doc._id,
    tenant: currentTenant() ?? o.api.deps.tenants.defaultTenant,
    url,
    zaak: doc.zaak,
    zaakIdentificatie: doc.zaakIdentificatie,
    doelregistratie: doc.doelregistratie,
    // (an overdracht stored before ids were given has none: the workflow's first step finds it by naam, in this tenant)
    ...(doc._doelregistratie ? { doelregistratieId: doc._doelregistratie } : {}),
    richting: doc.richting,
    ...(doc.antwoordUrl ? { antwoordUrl: doc.antwoordUrl } : {}),
    pogingen: c.TRANSFER_ATTEMPTS,
    wachttijdSeconden: c.TRANSFER_BACKOFF_SECONDS,
    maxWachttijdSeconden: c.TRANSFER_MAX_BACKOFF_SECONDS,
    hartslagSeconden: c.TRANSFER_HEARTBEAT_SECONDS,
  };
}

/**
 * `POST /overdrachten/{uuid}/voortgang`: the transfer worker (its own client id only) reports a step or the outcome.
 * Stored at once; a change of status is notified on kanaal `overdrachten` through the outbox.
 */
function registerVoortgang(o: Overdrachten, overdrachten: Resource<OverdrachtDoc>): void {
  o.api.route({
    method: 'POST',
    path: '/overdrachten/:uuid/voortgang',
    operationId: 'overdracht_voortgang',
    summary: 'Voortgang van een overdracht melden (alleen de overdrachtsdienst).',
    scopes: [],
    params: UuidParams,
    body: Voortgang,
    status: 200,
    response: Overdracht,
    handler: async ({ req, caller, params, body }) => {
      if (caller.clientId !== o.api.deps.config.TRANSFER_CLIENT_ID) throw ZgwError.forbidden('Alleen de overdrachtsdienst meldt voortgang.');
      for (let attempt = 0; ; attempt++) {
        const current = await overdrachten.getOr404(params.uuid);
        const next = applyVoortgang(current, body, new Date().toISOString());
        const events = next.status !== current.status ? overdrachten.events(next, current._id, 'partial_update') : [];
        const stored = await overdrachten.store.replace(current, next, events);
        if (stored) return overdrachten.toApi(stored, undefined, req);
        if (attempt > 3) throw ZgwError.notFound(`overdracht ${params.uuid} bestaat niet meer.`);
      }
    },
  });
}

/**
 * An overdracht as a replace stores it: without the store's own fields (id, creation time, outbox), with its
 * authorisation facts and start mark (`_zaaktype`, `_vertrouwelijkheid`, `_bronorganisatie`, `_gestart`) kept.
 */
export function ownFields(current: Stored<OverdrachtDoc>): OverdrachtDoc {
  const { _id, _created, _outbox, _pending, ...doc } = current;
  return doc;
}

/** A report applied to an overdracht: a step started keeps its first start, a step ended its first end. */
export function applyVoortgang(current: Stored<OverdrachtDoc>, v: Voortgang, now: string): OverdrachtDoc {
  const doc = ownFields(current);
  const stappen = [...doc.stappen];
  if (v.stap) {
    const i = stappen.findIndex((s) => s.stap === v.stap);
    const toelichting = v.toelichting ?? '';
    if (i < 0) stappen.push({ stap: v.stap, start: now, einde: v.fase === 'einde' ? now : null, toelichting });
    else if (v.fase === 'einde' && !stappen[i]!.einde)
      stappen[i] = { ...stappen[i]!, einde: now, toelichting: toelichting || stappen[i]!.toelichting };
  }
  const out: OverdrachtDoc = { ...doc, stappen };
  if (v.status && !(EINDSTATUSSEN as readonly string[]).includes(doc.status)) out.status = v.status;
  if (v.doelZaak) out.doelZaak = v.doelZaak;
  if (v.weigering) out.weigering = v.weigering;
  if (v.fout) out.fout = v.fout;
  if (v.zaakIdentificatie) out.zaakIdentificatie = v.zaakIdentificatie;
  return out;
}
