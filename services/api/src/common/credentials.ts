import { randomBytes } from 'node:crypto';
import type { Collection, Db } from 'mongodb';
import { openSecret, sealSecret, type Pii } from '@zgw/shared';

export interface Credential {
  _id: string; // client_id
  secret: string;
  createdAt: Date;
}

/** The platform's credential store: one HS256 secret per client id, stored sealed with the PII keys. */
export class Credentials {
  readonly coll: Collection<Credential>;

  constructor(
    db: Db,
    private readonly pii: Pii,
  ) {
    this.coll = db.collection<Credential>('credentials');
  }

  async secretFor(clientId: string): Promise<string | undefined> {
    const stored = (await this.coll.findOne({ _id: clientId }))?.secret;
    return stored === undefined ? undefined : openSecret(this.pii, 'credential', stored);
  }

  /** Registers (or re-keys) a client id; returns the secret, generated when none is given. */
  async set(clientId: string, secret?: string): Promise<string> {
    const value = secret ?? randomBytes(24).toString('base64url');
    await this.coll.updateOne(
      { _id: clientId },
      { $set: { secret: sealSecret(this.pii, 'credential', value) }, $setOnInsert: { createdAt: new Date() } },
      { upsert: true },
    );
    return value;
  }

  async remove(clientId: string): Promise<boolean> {
    return (await this.coll.deleteOne({ _id: clientId })).deletedCount > 0;
  }

  async list(): Promise<{ clientId: string; createdAt: Date }[]> {
    return (
      await this.coll
        .find({}, { projection: { secret: 0 } })
        .sort({ _id: 1 })
        .toArray()
    ).map((c) => ({ clientId: c._id, createdAt: c.createdAt }));
  }
}

/** Parses `ZGW_CLIENTS` ("id:secret[:all],..."): credentials registered at start, `all` adds an all-rights applicatie. */
export function parseClientsEnv(value: string): { clientId: string; secret: string; allRights: boolean }[] {
  return value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((entry) => {
      const [clientId, secret, flag] = entry.split(':');
      if (!clientId || !secret) throw new Error(`ZGW_CLIENTS entry "${clientId ?? ''}:…" needs the form clientId:secret[:all]`);
      return { clientId, secret, allRights: flag === 'all' };
    });
}
