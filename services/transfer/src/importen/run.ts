import {
  IMPORTEN_COLLECTION,
  IMPORT_TYPEN,
  ZgwClient,
  openSecret,
  platformDb,
  type ImportOpdracht,
  type ImportType,
  type StoredImport,
} from '@zgw/shared';
import { attemptSignal, platform, platformBase, type Deps } from '../common/context';
import { Bron } from './bron';

/** A run with the clients it reads and writes with: the source (its own credentials) and this platform in its tenant. */
export interface Run {
  run: StoredImport;
  /** The source, read at its own pace (Bron). */
  bron: Bron;
  hier: ZgwClient;
  /** This platform's base URL (its admin endpoints). */
  base: string;
  /** The most content one document version may bring (IMPORT_MAX_INHOUD_BYTES). */
  maxInhoud: number;
  /** The source's types that are here under other UUIDs: their URL there to ours (see brengCatalogi). */
  typen: Map<string, string>;
}

/** The run as stored, and the clients of its two sides. */
export async function openRun(deps: Deps, o: ImportOpdracht): Promise<Run> {
  const run = await platformDb(deps.db).collection<StoredImport>(IMPORTEN_COLLECTION).findOne({ _id: o.run });
  if (!run) throw new Error(`import ${o.run} bestaat niet (meer)`);
  const secret = openSecret(deps.pii, 'importBron', run.secret);
  const bron = new Bron(deps, run, new ZgwClient({ clientId: run.clientId, secret }, 60_000, 'Import', attemptSignal));
  const hier = platform(deps.config, o.tenant).client;
  const gekoppeld = await platformDb(deps.db).collection<ImportType>(IMPORT_TYPEN).find({ run: o.run }).toArray();
  const typen = new Map(gekoppeld.map((t) => [t.bron, t.hier]));
  return { run, bron, hier, base: platformBase(deps.config), maxInhoud: deps.config.IMPORT_MAX_INHOUD_BYTES, typen };
}
