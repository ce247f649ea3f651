import type { Db } from 'mongodb';
import type { Config, Logger } from '@zgw/shared';
import type { InhoudStore } from './inhoud';
import { GridfsInhoud } from './inhoud-gridfs';
import { S3Inhoud } from './inhoud-s3';

/** The content store INHOUD_STORE names: `gridfs` (default) or `s3`. */
export function inhoudStoreOf(kind: Config['INHOUD_STORE'], config: Config, db: Db, log: Logger): InhoudStore {
  return kind === 's3' ? new S3Inhoud(config, log) : new GridfsInhoud(db, log);
}
