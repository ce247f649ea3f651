import type { Db } from 'mongodb';
import type { Config, Logger, Pii } from '@zgw/shared';
import type { ReadAudit } from './audit-reads';
import type { Authenticator } from './auth';
import type { Caches } from './cache';
import type { Tenants } from './tenants';
import type { OutboxRelay } from './relay';
import type { Urls } from './urls';

/**
 * What each component offers the others, by component name. Empty here: each entry is declared (by declaration
 * merging) beside its interface, so this module depends on none of them.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface Components {}

/** What every component gets from the platform. */
export interface Deps {
  config: Config;
  db: Db;
  urls: Urls;
  log: Logger;
  auth: Authenticator;
  /** The organisations this installation serves (common/tenants.ts). */
  tenants: Tenants;
  caches: Caches;
  /** Seals and opens personal identifiers at rest, and gives their search hashes (common/pii-fields.ts). */
  pii: Pii;
  relay?: OutboxRelay;
  /** The audit trail of reads (audited components record every successful read here). */
  reads?: ReadAudit;
  /** Fetches a JSON document from another service (selectielijst, external references). */
  fetchJson: (url: string) => Promise<{ status: number; body: unknown }>;
  /**
   * What a component offers the components mounted after it (Catalogi for Zaken, ...), by component name: each
   * entry's interface lives in common/ (links.ts) or, when only the platform's own screens use it, in its component.
   */
  components: Partial<Components>;
}
