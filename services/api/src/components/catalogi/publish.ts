import { ZgwError } from '../../common/http/errors';
import { UuidParams } from '../../common/platform/component';
import type { Resource } from '../../common/platform/resource';
import { publicFields, type Stored } from '../../common/storage/store';
import { WRITE, ZAAKTYPE_ONDERDELEN, type Catalogi, type Publisher } from './context';
import type { CatalogiDoc, ZaakTypeDoc } from './schemas';
import { besluittypenOf, informatieobjecttypenOf } from './zaaktypen';

/**
 * `POST /{type}/{uuid}/publish`: ends the concept phase. A zaaktype can only be published when the besluittypen
 * and informatieobjecttypen it uses are published (`concept-relation`). Its parts follow its concept state.
 */
export interface PublishHooks<D extends CatalogiDoc> {
  /** Refuses the publication by throwing (e.g. `concept-relation`). */
  check?: (doc: Stored<D>, url: string) => Promise<void>;
  /** Brings denormalised copies of the concept state up to date once the object is published. */
  after?: (url: string) => Promise<void>;
}

/** Registers the route; returns the same publication by UUID, for what publishes outside a request (an import). */
export function registerPublish<D extends CatalogiDoc>(c: Catalogi, resource: Resource<D>, hooks: PublishHooks<D> = {}): Publisher {
  c.api.route({
    method: 'POST',
    path: `/${resource.def.collection}/:uuid/publish`,
    operationId: `${resource.def.resource}_publish`,
    summary: `Publiceer het concept ${resource.def.resource}.`,
    scopes: WRITE,
    params: UuidParams,
    response: resource.def.schema,
    status: 200,
    handler: async ({ caller, params }) => resource.toApi(await publish(resource, await resource.getOr404(params.uuid, caller), hooks)),
  });
  return async (uuid) => {
    await publish(resource, await resource.getOr404(uuid), hooks);
  };
}

/** Publishes a concept (its checks first, then its denormalised copies); a published one stays as it is. */
async function publish<D extends CatalogiDoc>(resource: Resource<D>, current: Stored<D>, hooks: PublishHooks<D> = {}): Promise<Stored<D>> {
  const url = resource.url(current._id);
  await hooks.check?.(current, url);
  const doc = { ...publicFields(current), concept: false } as D;
  const stored = await resource.store.replace(current, doc, current.concept === false ? [] : resource.events(doc, current._id, 'update'));
  if (!stored) throw ZgwError.notFound(`${resource.def.resource} ${current._id} bestaat niet meer.`);
  await hooks.after?.(url);
  return stored;
}

export async function zaaktypePublishCheck(c: Catalogi, doc: Stored<ZaakTypeDoc>, url: string): Promise<void> {
  const related = [...(await besluittypenOf(c, doc)), ...(await informatieobjecttypenOf(c, url))];
  if (related.some((r) => r.concept !== false)) {
    throw ZgwError.field('nonFieldErrors', 'concept-relation', 'Alle gerelateerde besluittypen en informatieobjecttypen moeten gepubliceerd zijn.');
  }
}

/** After publishing a zaaktype its parts are no longer concept (their `status` filter reads `_concept`). */
export async function markPartsPublished(c: Catalogi, zaaktypeUrl: string): Promise<void> {
  for (const name of ZAAKTYPE_ONDERDELEN) {
    await c[name].store.raw.updateMany({ zaaktype: zaaktypeUrl }, { $set: { _concept: false } });
  }
}

/** After publishing an informatieobjecttype, its zaaktype links may become definitief (`_iotConcept`). */
export async function markLinksPublished(c: Catalogi, iotUrl: string): Promise<void> {
  await c.ziot.store.raw.updateMany({ informatieobjecttype: iotUrl }, { $set: { _iotConcept: false } });
}
