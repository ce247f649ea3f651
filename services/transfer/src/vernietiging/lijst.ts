import type { Collection, Db } from 'mongodb';
import {
  VERNIETIGD_COLLECTION,
  VERNIETIGINGSLIJST_ZAKEN_COLLECTION,
  VERNIETIGINGSLIJSTEN_COLLECTION,
  VERNIETIGING_INSTELLINGEN_COLLECTION,
  inTenant,
  type VernietigingInstellingenDoc,
  type VernietigingOpdracht,
  type VernietigingslijstDoc,
  type VernietigingslijstZaakDoc,
  type ZgwClient,
} from '@zgw/shared';
import { platform, platformBase, type Deps } from '../common/context';

/** One entry of the register of destroyed main objects (VERNIETIGD_COLLECTION): its URL, the list, when. */
export interface Vernietigd {
  _id: string;
  lijst: string;
  soort: 'zaak' | 'besluit' | 'document';
  op: Date;
}

/** A list being carried out: its collections within its organisation, and this platform as the worker there. */
export interface Uitvoer {
  o: VernietigingOpdracht;
  /** The database as the organisation sees it (its audit trails). */
  db: Db;
  lijsten: Collection<VernietigingslijstDoc>;
  items: Collection<VernietigingslijstZaakDoc>;
  instellingen: Collection<VernietigingInstellingenDoc>;
  vernietigd: Collection<Vernietigd>;
  /** This platform as the worker's client acting within the list's organisation (every DELETE notified and audited). */
  hier: ZgwClient;
  zaken: string;
  besluiten: string;
  documenten: string;
}

/** Runs `fn` within the list's organisation (every query of its collections carries it), with what it needs. */
export function binnen<T>(deps: Deps, o: VernietigingOpdracht, fn: (u: Uitvoer) => Promise<T>): Promise<T> {
  const kant = platform(deps.config, o.tenant);
  const base = platformBase(deps.config);
  return inTenant(o.tenant, () =>
    fn({
      o,
      db: deps.db,
      lijsten: deps.db.collection<VernietigingslijstDoc>(VERNIETIGINGSLIJSTEN_COLLECTION),
      items: deps.db.collection<VernietigingslijstZaakDoc>(VERNIETIGINGSLIJST_ZAKEN_COLLECTION),
      instellingen: deps.db.collection<VernietigingInstellingenDoc>(VERNIETIGING_INSTELLINGEN_COLLECTION),
      vernietigd: deps.db.collection<Vernietigd>(VERNIETIGD_COLLECTION),
      hier: kant.client,
      zaken: `${base}/zaken/api/v1`,
      besluiten: `${base}/besluiten/api/v1`,
      documenten: `${base}/documenten/api/v1`,
    }),
  );
}

/** The list, which must exist in the organisation (else nothing is destroyed: a permanent failure). */
export async function lijstVan(u: Uitvoer): Promise<VernietigingslijstDoc> {
  const lijst = await u.lijsten.findOne({ _id: u.o.lijst });
  if (!lijst) throw new Error(`vernietigingslijst ${u.o.lijst} bestaat niet (meer)`);
  return lijst;
}
