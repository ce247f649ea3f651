import type { z } from 'zod';
import { fieldOf } from '../../common/resources/expand';
import type { Document, Filter } from 'mongodb';
import type { Resource } from '../../common/platform/resource';
import { LIVE, type Stored } from '../../common/storage/store';
import { AANMAKEN, BIJWERKEN, READ, VERWIJDEREN, type Documenten } from './context';
import { registerPart } from './parts';
import {
  Gebruiksrechten,
  GebruiksrechtenExpanded17,
  GebruiksrechtenInput,
  GebruiksrechtenQuery,
  type EioDoc,
  type GebruiksrechtenDoc,
} from './schemas';

const RANGES: Record<string, string> = { lt: '$lt', lte: '$lte', gt: '$gt', gte: '$gte' };

/** Gebruiksrechten of a document; the document's `indicatieGebruiksrecht` says whether it has any (drc-006). */
export function registerGebruiksrechten(d: Documenten): Resource<GebruiksrechtenDoc> {
  return registerPart<GebruiksrechtenDoc, z.output<typeof GebruiksrechtenQuery>>(d, {
    collection: 'gebruiksrechten',
    resource: 'gebruiksrechten',
    schema: Gebruiksrechten,
    expanded17: GebruiksrechtenExpanded17,
    input: GebruiksrechtenInput,
    query: GebruiksrechtenQuery,
    scopes: { read: READ, create: [AANMAKEN], update: [BIJWERKEN], destroy: [VERWIJDEREN] },
    operations: ['list', 'create', 'read', 'update', 'partial_update', 'destroy'],
    plainList: true,
    notify: true,
    defaults: { einddatum: null },
    filter: (q) => {
      const f: Filter<Document> = {};
      for (const field of ['startdatum', 'einddatum']) {
        const cond: Filter<Document> = {};
        for (const [suffix, op] of Object.entries(RANGES)) {
          const value = fieldOf(q, `${field}__${suffix}`);
          if (value !== undefined) cond[op] = value;
        }
        if (Object.keys(cond).length) f[field] = cond;
      }
      return f;
    },
    afterWrite: async (stored, eio, _ctx, previous) => {
      if (!previous) await setIndicatie(d, eio, true);
    },
    afterDestroy: async (current) => {
      const eio = await d.informatieobjecten.byUrl(current.informatieobject);
      if (eio && !(await d.gebruiksrechten.store.findOne({ informatieobject: current.informatieobject }))) await setIndicatie(d, eio, null);
    },
  });
}

/**
 * The document's indication follows its gebruiksrechten: set on the document and its current version, without a
 * new version (the document's content and description did not change).
 */
async function setIndicatie(d: Documenten, eio: Stored<EioDoc>, value: boolean | null): Promise<void> {
  await d.informatieobjecten.store.raw.updateOne({ _id: eio._id, ...LIVE }, { $set: { indicatieGebruiksrecht: value } });
  await d.versies.coll.updateOne({ _id: `${eio._id}:${eio.versie}` }, { $set: { indicatieGebruiksrecht: value } });
}
