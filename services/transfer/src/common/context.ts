import { ApplicationFailure, Context } from '@temporalio/activity';
import type { Db } from 'mongodb';
import {
  DOELREGISTRATIES_COLLECTION,
  TENANT_HEADER,
  ZgwClient,
  doelregistratieId,
  findDoelregistratie,
  inTenant,
  openSecret,
  traced,
  type Config,
  type Logger,
  type OverdrachtOpdracht,
  type Pii,
  type StoredDoelregistratie,
} from '@zgw/shared';

/** What every activity gets: the configuration, the log, the store (for the doelregistraties) and the PII keys (their secrets). */
export interface Deps {
  config: Config;
  log: Logger;
  db: Db;
  pii: Pii;
}

/** One side of a transfer: a ZGW system reached as one client, with the base URL of each API. */
export interface Kant {
  client: ZgwClient;
  zaken: string;
  catalogi: string;
  documenten: string;
  besluiten: string;
}

/** Source and target of a transfer, with the doelregistratie that describes the other registration. */
export interface Route {
  bron: Kant;
  doel: Kant;
  registratie: Omit<StoredDoelregistratie, 'secret'> & { naam: string };
  /** The doelregistratie's id within the overdracht's tenant (the later steps find it by this: Plan). */
  doelregistratieId: string;
  /** The tenant (RSIN) whose overdracht it is. */
  tenant: string;
  /**
   * An internal route to another tenant: each side sees only its own half, so neither zaak names the other (a URL of
   * another tenant does not resolve); the copy carries the overdracht's kenmerk.
   */
  apart: boolean;
}

/** A refusal: no retries, the transfer ends `geweigerd` with this code (see OverdrachtStatus). */
export const WEIGERING = 'Weigering';
/** A permanent error that is not a refusal (the copy does not verify, a 4xx of the target): compensated, `mislukt`. */
export const PERMANENT = 'Permanent';

/**
 * The cancellation signal of the activity attempt this code runs in: a cancel, or an attempt Temporal has given up
 * on (its heartbeat lapsed and another worker took over), ends its calls, so an old attempt never writes beside the
 * new one.
 */
export function attemptSignal(): AbortSignal | undefined {
  try {
    return Context.current().cancellationSignal;
  } catch {
    return undefined; // not inside an activity
  }
}

/**
 * This platform, as the transfer's own client (TRANSFER_CLIENT_ID), at TRANSFER_API_URL, acting for `tenant` (every
 * call names it: TENANT_HEADER; without one, the client's own tenant).
 */
export function platform(config: Config, tenant?: string): Kant {
  const base = platformBase(config);
  const credentials = { clientId: config.TRANSFER_CLIENT_ID, secret: config.TRANSFER_SECRET };
  const client = new ZgwClient(credentials, undefined, undefined, attemptSignal, tenant ? { [TENANT_HEADER]: tenant } : {});
  return kant(client, {
    zakenApi: `${base}/zaken/api/v1`,
    catalogiApi: `${base}/catalogi/api/v1`,
    documentenApi: `${base}/documenten/api/v1`,
    besluitenApi: `${base}/besluiten/api/v1`,
  });
}

/** Where the worker reaches this platform (TRANSFER_API_URL, else PUBLIC_BASE_URL). */
export const platformBase = (config: Config): string => (config.TRANSFER_API_URL ?? config.PUBLIC_BASE_URL).replace(/\/+$/, '');

function kant(client: ZgwClient, r: Pick<StoredDoelregistratie, 'zakenApi' | 'catalogiApi' | 'documentenApi' | 'besluitenApi'>): Kant {
  const trim = (u?: string) => String(u ?? '').replace(/\/+$/, '');
  return { client, zaken: trim(r.zakenApi), catalogi: trim(r.catalogiApi), documenten: trim(r.documentenApi), besluiten: trim(r.besluitenApi) };
}

/**
 * The route of a transfer: internal (platform to platform), outgoing (platform to the doelregistratie) or incoming.
 * Its doelregistratie is the overdracht tenant's, found by its id (or, in a workflow started before ids were given,
 * by naam within that tenant, which gives the id the later steps use): never another tenant's that has the same
 * naam. Gone (deleted since): a permanent failure.
 */
export async function routeOf(deps: Deps, o: OverdrachtOpdracht): Promise<Route> {
  const tenant = o.tenant ?? deps.config.ZGW_DEFAULT_TENANT;
  const reg = await findDoelregistratie(deps.db, tenant, { id: o.doelregistratieId, naam: o.doelregistratie });
  if (!reg)
    throw ApplicationFailure.create({ type: PERMANENT, message: `doelregistratie ${o.doelregistratie} bestaat niet (meer)`, nonRetryable: true });
  const id = await inTenant(tenant, () => doelregistratieId(deps.db.collection<StoredDoelregistratie>(DOELREGISTRATIES_COLLECTION), reg));
  const { secret, ...rest } = reg;
  const registratie = { ...rest, naam: reg._id };
  const ids = { doelregistratieId: id, tenant };
  // this platform as the overdracht's tenant; an internal route's other side as its doelregistratie's tenant
  const hier = platform(deps.config, o.tenant);
  if (o.richting === 'intern') {
    const apart = !!reg.tenant && reg.tenant !== tenant;
    return { bron: hier, doel: apart ? platform(deps.config, reg.tenant) : hier, registratie, apart, ...ids };
  }
  const daar = kant(
    new ZgwClient(
      { clientId: reg.clientId ?? '', secret: secret ? openSecret(deps.pii, 'doelregistratie', secret) : '' },
      undefined,
      undefined,
      attemptSignal,
    ),
    reg,
  );
  return o.richting === 'uit'
    ? { bron: hier, doel: daar, registratie, apart: false, ...ids }
    : { bron: daar, doel: hier, registratie, apart: false, ...ids };
}

/** The log fields of every line about one transfer (see docs/transfers.md: logging). */
export const tracedOf = (o: Pick<OverdrachtOpdracht, 'zaakIdentificatie' | 'overdracht'>): Record<string, string> =>
  traced(o.zaakIdentificatie, o.overdracht);

/** The uuid at the end of a resource URL. */
export const uuidOf = (url: string): string => url.replace(/\/+$/, '').split('/').pop()!;
