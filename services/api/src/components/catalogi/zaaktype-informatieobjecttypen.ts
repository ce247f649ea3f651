import type { z } from 'zod';
import type { Document, Filter } from 'mongodb';
import { ZgwError } from '../../common/http/errors';
import { Resource, type WriteContext } from '../../common/platform/resource';
import type { Stored } from '../../common/storage/store';
import {
  DELETE_OR_FORCED,
  READ,
  WRITE_OR_FORCED,
  and,
  isUrl,
  mayForceDelete,
  mayForceWrite,
  mustResolve,
  nonField,
  resolveLocal,
  type Catalogi,
} from './context';
import { served133 } from './expand';
import { byNames, vandaag, versionOn, versionsOn } from './relations';
import {
  ZaakTypeInformatieObjectType,
  ZaakTypeInformatieObjectTypeInput,
  ZiotQuery,
  type InformatieObjectTypeDoc,
  type ZiotDoc,
  type ZaakTypeInformatieObjectTypeIn,
} from './schemas';

/** A link may not change once both its zaaktype and its informatieobjecttype are published. */
async function assertNotBothPublished(c: Catalogi, zaaktype: string, iot: string): Promise<void> {
  const [zt, io] = await Promise.all([c.zaaktypen.byUrl(zaaktype), c.informatieobjecttypen.byUrl(iot)]);
  if (zt?.concept === false && io?.concept === false) {
    throw nonField('non-concept-relation', 'Zaaktype en informatieobjecttype zijn beide gepubliceerd.');
  }
}

/** A link is definitief when both its zaaktype and its informatieobjecttype are; otherwise it is concept. */
function ziotStatusFilter(status: unknown): Filter<Document> {
  if (status === 'alles') return {};
  if (status === 'concept') return { $or: [{ _concept: true }, { _iotConcept: true }] };
  return { _concept: false, _iotConcept: false };
}

export function registerZiot(c: Catalogi): Resource<ZiotDoc> {
  return new Resource<ZiotDoc, ZaakTypeInformatieObjectTypeIn, z.output<typeof ZiotQuery>>(c.api, {
    collection: 'zaaktype-informatieobjecttypen',
    resource: 'zaaktypeinformatieobjecttype',
    operationName: 'zaakinformatieobjecttype',
    schema: ZaakTypeInformatieObjectType,
    input: ZaakTypeInformatieObjectTypeInput,
    query: ZiotQuery,
    scopes: { read: READ, create: WRITE_OR_FORCED, update: WRITE_OR_FORCED, destroy: DELETE_OR_FORCED },
    sort: { zaaktype: 1, volgnummer: 1, _id: 1 },
    filter: (q) => {
      const f: Filter<Document> = {};
      if (q.zaaktype) f.zaaktype = q.zaaktype;
      if (q.informatieobjecttype) {
        const v = String(q.informatieobjecttype);
        Object.assign(f, isUrl(v) ? { informatieobjecttype: v } : { _iotOmschrijving: v });
      }
      if (q.richting) f.richting = q.richting;
      return and(f, ziotStatusFilter(q.status));
    },
    ...served133(c, 'ZaakTypeInformatieObjectType', { query: ZiotQuery }),
    prepare: (data, ctx, current) => prepare(c, data, ctx, current),
    beforeDestroy: async (current, ctx) => {
      if (!mayForceDelete(ctx.caller)) await assertNotBothPublished(c, current.zaaktype, current.informatieobjecttype);
    },
    // The link names its informatieobjecttype by omschrijving: it shows the version valid today (the list has no
    // datumGeldigheid). The field is required, so without a version valid today it shows the one it was made with.
    render: async (doc) => {
      const omschrijving = doc._iotOmschrijving ?? '';
      const version = (await versionsOn(c.informatieobjecttypen, 'omschrijving', doc.catalogus, [omschrijving])).get(omschrijving);
      return { informatieobjecttype: version ? c.informatieobjecttypen.url(String(version._id)) : doc.informatieobjecttype };
    },
  });
}

async function prepare(c: Catalogi, input: ZaakTypeInformatieObjectTypeIn, ctx: WriteContext, current?: Stored<ZiotDoc>): Promise<ZiotDoc> {
  const zaaktype = await mustResolve(c.zaaktypen, 'zaaktype', input.zaaktype);
  let iot: Stored<InformatieObjectTypeDoc> | undefined;
  if (isUrl(input.informatieobjecttype)) {
    const r = await resolveLocal(c.informatieobjecttypen, 'informatieobjecttype', input.informatieobjecttype);
    if (r.error) throw ZgwError.validation([r.error]);
    iot = r.doc;
  } else {
    // 1.3 history model: an omschrijving names the version of the zaaktype's catalogus valid today (versionOn),
    // else (none yet or any more) the newest. Reads show the version of the day in any case (render).
    const versions = await byNames(c.informatieobjecttypen, 'omschrijving', zaaktype.catalogus, [input.informatieobjecttype]);
    iot = versionOn(versions, vandaag()) ?? versions[0];
    if (!iot) {
      throw ZgwError.field(
        'informatieobjecttype',
        'does_not_exist',
        `Er is geen informatieobjecttype "${input.informatieobjecttype}" in de catalogus van het zaaktype.`,
      );
    }
  }
  if (iot!.catalogus !== zaaktype.catalogus) {
    throw nonField('relations-incorrect-catalogus', 'Zaaktype en informatieobjecttype moeten tot dezelfde catalogus behoren.');
  }
  if (input.statustype) await mustResolve(c.statustypen, 'statustype', input.statustype);
  const iotUrl = c.informatieobjecttypen.url(iot!._id);
  if (!mayForceWrite(ctx.caller)) {
    if (current) await assertNotBothPublished(c, current.zaaktype, current.informatieobjecttype);
    if (zaaktype.concept === false && iot!.concept === false) {
      throw nonField('non-concept-relation', 'Zaaktype en informatieobjecttype zijn beide gepubliceerd.');
    }
  }
  return {
    ...input,
    informatieobjecttype: iotUrl,
    statustype: input.statustype ?? null,
    catalogus: zaaktype.catalogus,
    zaaktypeIdentificatie: zaaktype.identificatie,
    _concept: zaaktype.concept !== false,
    _iotConcept: iot!.concept !== false,
    _iotOmschrijving: iot!.omschrijving,
  };
}
