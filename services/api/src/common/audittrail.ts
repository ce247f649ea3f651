import type { Db, Document } from 'mongodb';
import { z } from 'zod';
import { AUDITTRAIL_COLLECTION, ensureAuditIndexes } from '@zgw/shared';
import type { Caller } from './auth';
import type { ComponentApi } from './component';
import { ZgwError } from './errors';
import type { Resource } from './resource';

export const AuditTrail = z
  .object({
    uuid: z.uuid(),
    bron: z.string(),
    applicatieId: z.string(),
    applicatieWeergave: z.string(),
    gebruikersId: z.string(),
    gebruikersWeergave: z.string(),
    actie: z.string(),
    actieWeergave: z.string(),
    resultaat: z.number().int(),
    hoofdObject: z.url(),
    resource: z.string(),
    resourceUrl: z.url(),
    toelichting: z.string(),
    resourceWeergave: z.string(),
    aanmaakdatum: z.string(),
    wijzigingen: z.object({ oud: z.unknown(), nieuw: z.unknown() }),
  })
  .meta({ id: 'AuditTrail' });

type Entry = Document & { _id: string };

const view = ({ _id, ...rest }: Entry) => ({ uuid: _id, ...Object.fromEntries(Object.entries(rest).filter(([k]) => !k.startsWith('_'))) });

/** The trail of one main object, oldest first: the index its list and detail use. */
export async function ensureAudittrailIndex(db: Db): Promise<void> {
  await ensureAuditIndexes(db, AUDITTRAIL_COLLECTION);
}

/**
 * `/<collection>/{<param>}/audittrail` and its detail: the audit trail of one main object (a zaak, a document, a
 * besluit), entries kept in collection `audittrail` (written at once by the API and by the audit service), oldest
 * first. A main object that is gone has no trail to show (404).
 */
export function registerAudittrail(api: ComponentApi, owner: Resource<Document>, param: string, mayRead?: (doc: Document, caller: Caller) => boolean): void {
  const coll = api.deps.db.collection<Entry>(AUDITTRAIL_COLLECTION);
  const Params = z.object({ [param]: z.string() });
  const DetailParams = Params.extend({ uuid: z.string() });
  const base = `/${owner.def.collection}/:${param}/audittrail`;
  // A main object that does not exist for the caller (Resource.callerFilter) has no trail for it either; `mayRead`
  // is whether the caller holds audittrails.lezen for this object (its type), 403 otherwise.
  const ownerUrl = async (params: Record<string, string>, caller: Caller) => {
    const doc = await owner.getOr404(params[param]!, undefined, owner.callerCondition(caller));
    if (mayRead && !mayRead(doc, caller)) throw ZgwError.forbidden('Deze actie vereist de scope audittrails.lezen voor het type van dit object.');
    return owner.url(doc._id);
  };
  api.route({
    method: 'GET', path: base, operationId: 'audittrail_list', summary: `Alle audit trail regels van een ${owner.def.resource}.`,
    scopes: ['audittrails.lezen'], params: Params, response: z.array(AuditTrail),
    handler: async ({ params, caller }) => {
      const hoofdObject = await ownerUrl(params as Record<string, string>, caller);
      const entries = await coll.find({ hoofdObject }).sort({ hoofdObject: 1, aanmaakdatum: 1, _id: 1 }).toArray();
      return entries.map(view);
    },
  });
  api.route({
    method: 'GET', path: `${base}/:uuid`, operationId: 'audittrail_read', summary: 'Een audit trail regel.',
    scopes: ['audittrails.lezen'], params: DetailParams, response: AuditTrail,
    handler: async ({ params, caller }) => {
      const hoofdObject = await ownerUrl(params as Record<string, string>, caller);
      const entry = await coll.findOne({ _id: (params as Record<string, string>).uuid!, hoofdObject });
      if (!entry) throw ZgwError.notFound('Deze audit trail regel bestaat niet.');
      return view(entry);
    },
  });
}
