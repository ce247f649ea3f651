import type { z } from 'zod';
import { createHash } from 'node:crypto';
import type { Document, Filter } from 'mongodb';
import { KANAAL_KENMERKEN, KANALEN, NRC_KANALEN, TENANT_FIELD } from '@zgw/shared';
import { ZgwError } from '../../common/http/errors';
import { Resource } from '../../common/platform/resource';
import { PUBLICEREN, READ, type Notificaties } from './context';
import { Kanaal, KanaalInput, KanaalQuery, type KanaalDoc, type KanaalIn } from './schemas';

/** Where the standard documents the kenmerken of the platform's own kanalen. */
const DOCUMENTATIE = 'https://vng-realisatie.github.io/gemma-zaken/standaard/';

/** MongoDB's duplicate key error: a unique index refused the write. */
const DUPLICATE_KEY = 11000;

/**
 * The kanalen a tenant sees: the platform's own (the standard's, without a tenant, as are those registered before
 * kanalen were kept per organisation) and those it registered itself. Kanalen are kept at platform level (a name is
 * unique on the platform, and the notifier consumes every kanaal's topic), so the store does not add the tenant here.
 */
export function visibleKanalen(tenant: string): Filter<Document> {
  return { $or: [{ [TENANT_FIELD]: null }, { [TENANT_FIELD]: tenant }] };
}

/**
 * KANAAL: unique by naam on the platform (a producer checks whether one exists before registering it); created,
 * listed and read, never changed or removed (the standard has no such operations). The platform's own kanalen exist
 * from the start and are every organisation's; a kanaal a client registers is its organisation's own (listed, read,
 * published on and subscribed to by it alone). A name another organisation took is refused as any taken name is.
 */
export function registerKanalen(n: Notificaties): Resource<KanaalDoc> {
  const kanalen: Resource<KanaalDoc, KanaalIn> = new Resource<KanaalDoc, KanaalIn, z.output<typeof KanaalQuery>>(n.api, {
    collection: 'kanaal',
    storeAs: NRC_KANALEN,
    resource: 'kanaal',
    schema: Kanaal,
    input: KanaalInput,
    query: KanaalQuery,
    filter: (q, caller) => ({ ...(q.naam !== undefined ? { naam: q.naam } : {}), ...visibleKanalen(caller.tenant) }),
    callerFilter: (caller) => visibleKanalen(caller.tenant),
    plainList: true,
    operations: ['list', 'create', 'read'],
    scopes: { read: READ, create: [PUBLICEREN], update: [PUBLICEREN], destroy: [PUBLICEREN] },
    prepare: async (input, ctx) => {
      // (any kanaal of that name, whoever's: names are the platform's)
      if (await kanalen.store.findOne({ naam: input.naam })) throw taken(input.naam);
      const doc = { naam: input.naam, documentatieLink: input.documentatieLink ?? '', filters: [...new Set(input.filters)] };
      return { ...doc, [TENANT_FIELD]: ctx.caller.tenant } as KanaalDoc;
    },
  });
  // Two creates of one naam at once: the unique index refuses the second, which gets the same 400.
  const insert = kanalen.insert.bind(kanalen);
  kanalen.insert = async (doc, ctx) => {
    try {
      return await insert(doc, ctx);
    } catch (err) {
      if ((err as { code?: number }).code === DUPLICATE_KEY) throw taken(doc.naam);
      throw err;
    }
  };
  return kanalen;
}

function taken(naam: string): ZgwError {
  return ZgwError.field('naam', 'unique', `Er bestaat al een kanaal met de naam "${naam}".`);
}

/** A uuid derived from the naam, so every instance creates the same kanaal at its first start (and never two). */
export function platformKanaalUuid(naam: string): string {
  const h = createHash('sha1').update(`zgw-kanaal:${naam}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${((parseInt(h.slice(16, 18), 16) & 0x3f) | 0x80).toString(16)}${h.slice(18, 20)}-${h.slice(20, 32)}`;
}

/**
 * Creates the platform's own kanalen (zaken, documenten, ...) with their kenmerken as filters when missing: by a
 * fixed uuid and only where absent, so instances starting together create each once, and a kanaal of that naam
 * registered earlier by a client is left as it is.
 */
export async function ensurePlatformKanalen(kanalen: Resource<KanaalDoc>): Promise<void> {
  for (const naam of KANALEN) {
    if (await kanalen.store.findOne({ naam })) continue;
    const doc = { naam, documentatieLink: DOCUMENTATIE, filters: [...(KANAAL_KENMERKEN[naam] ?? [])], _created: new Date() };
    try {
      await kanalen.store.raw.updateOne({ _id: platformKanaalUuid(naam) }, { $setOnInsert: doc }, { upsert: true });
    } catch (err) {
      if ((err as { code?: number }).code !== DUPLICATE_KEY) throw err;
    }
  }
}
