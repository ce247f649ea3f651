import { DOELREGISTRATIES_COLLECTION } from './doelregistraties';
import { IMPORTEN_COLLECTION } from './importen';
import { NRC_ABONNEMENTEN } from './nrc';
import { Pii } from './pii';

/** The administrators of the admin screens (names, password hashes, second factors). */
export const ADMIN_USERS_COLLECTION = 'adminusers';
/** The admin screens' login sessions (each with the tenant it acts in). */
export const ADMIN_SESSIONS_COLLECTION = 'adminsessions';
/** Local logins between the password and the second factor (short-lived). */
export const ADMIN_LOGINS_COLLECTION = 'adminlogins';

/**
 * Secrets the platform has to read back (to sign a token, to reach a transfer target, to send a notification's
 * Authorization header) are stored sealed with the PII keys, each in its own context (`<collection>.<field>`), so a
 * token copied to another field or collection does not open. Values stored in the clear by an earlier version are read
 * as they are until the start's sealing (or `pii-rekey`) has sealed them.
 */
export const SECRET_FIELDS = {
  /** HS256 client secrets (the credential store). */
  credential: { collection: 'credentials', field: 'secret' },
  /** The secret an external transfer target is reached with. */
  doelregistratie: { collection: DOELREGISTRATIES_COLLECTION, field: 'secret' },
  /** The Authorization header sent with an abonnement's notifications. */
  abonnement: { collection: NRC_ABONNEMENTEN, field: 'auth' },
  /** The secret the registration import reads its source with. */
  importBron: { collection: IMPORTEN_COLLECTION, field: 'secret' },
  /** An administrator's TOTP seed (the second factor of a local login). */
  adminTotp: { collection: ADMIN_USERS_COLLECTION, field: 'totpSecret' },
  /** A second factor being set up (its seed and recovery codes) until its first code confirms it. */
  adminEnrolment: { collection: ADMIN_LOGINS_COLLECTION, field: 'enrolment' },
} as const;

export type SecretKind = keyof typeof SECRET_FIELDS;

function context(kind: SecretKind): string {
  const { collection, field } = SECRET_FIELDS[kind];
  return `${collection}.${field}`;
}

/** The secret as stored: encrypted with the newest key. */
export function sealSecret(pii: Pii, kind: SecretKind, value: string): string {
  return pii.encrypt(value, context(kind));
}

/** The secret in the clear: opened, or as it is when an earlier version stored it in the clear. */
export function openSecret(pii: Pii, kind: SecretKind, stored: string): string {
  return Pii.isSealed(stored) ? pii.decrypt(stored, context(kind)) : stored;
}
