import { randomUUID } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { z as zod } from 'zod';
import type { AuditEntry, Notificatie } from '@zgw/shared';
import { registerAudittrail as registerCommonAudittrail } from '../../common/platform/audittrail';
import type { Caller } from '../../common/auth/auth';
import { ZgwError } from '../../common/http/errors';
import { Resource, type Answer, type WriteActie } from '../../common/platform/resource';
import { publicFields, pull, type Stored } from '../../common/storage/store';
import type { ZaakBesluitLinks } from '../../common/platform/links';
import { jsonObject, parseOrThrow } from '../../common/http/validation';
import { expand, parseExpand } from './expand';
import { zaakOf } from './parts';
import { herbereken, markeer, volgt } from './herberekenen';
import {
  BIJWERKEN,
  LEZEN,
  PART_LINKS,
  READ,
  UPDATE,
  mayOnZaak,
  mustBeUnchanged,
  mustMayChangeClosed,
  mustMayOnZaak,
  nonField,
  partFacts,
  type Zaken,
} from './context';
import { mustNotBeHeld } from './bewaring';
import {
  EXPANDABLE17,
  Expanded17,
  V17,
  ZaakBesluit,
  ZaakBesluitInput,
  ZaakEigenschap,
  ZaakEigenschapInput,
  type NestedFacts,
  type ZaakBesluitDoc,
  type ZaakDoc,
  type ZaakEigenschapDoc,
} from './schemas';
import type { ExpandedAnswer } from '../../common/resources/expand';

/**
 * Resources that live under one zaak's URL: `/zaken/{zaak_uuid}/zaakeigenschappen/{uuid}` and
 * `/zaken/{zaak_uuid}/besluiten/{uuid}`. Their URL carries the zaak, so rendering and notifications use it.
 */
export class NestedResource<D extends NestedDoc, I = zod.output<zod.ZodObject>> extends Resource<D, I> {
  urlOf(doc: { _zaakUuid: string; _id: string }): string {
    return `${this.api.url('zaken', doc._zaakUuid)}/${this.def.collection}/${doc._id}`;
  }

  override async toApi(doc: Stored<D>): Promise<Answer<D>> {
    const extra = this.def.render ? await this.def.render(doc, this.urlOf(doc)) : {};
    return { url: this.urlOf(doc), uuid: doc._id, ...publicFields(doc), ...extra };
  }

  override notificatie(doc: D, uuid: string, actie: string): Notificatie {
    const n = super.notificatie(doc, uuid, actie);
    const url = this.urlOf({ ...doc, _id: uuid });
    return { ...n, resourceUrl: url, hoofdObject: doc.zaak };
  }

  /** The audit entry of a write names the nested URL and belongs to the zaak's trail. */
  override auditEntry(...args: Parameters<Resource<D, I>['auditEntry']>): AuditEntry | undefined {
    const entry = super.auditEntry(...args);
    if (!entry) return undefined;
    const [, , uuid, oud, nieuw] = args;
    const doc = (nieuw ?? oud)!;
    const url = this.urlOf({ ...doc, _id: uuid });
    const view = <V extends object>(v: V | null) => (v ? { ...v, url } : null);
    return {
      ...entry,
      hoofdObject: doc.zaak,
      resourceUrl: url,
      resourceWeergave: url,
      wijzigingen: { oud: view(entry.wijzigingen.oud), nieuw: view(entry.wijzigingen.nieuw) },
    };
  }
}

const ZaakParams = zod.object({ zaak_uuid: zod.string() });
const ZaakPartParams = zod.object({ zaak_uuid: zod.string(), uuid: zod.string() });

/** What every resource nested under a zaak has. */
type NestedDoc = { zaak: string } & NestedFacts;

/** What a nested resource's input schema gives, with the zaak of the path. */
type WithZaak<S extends zod.ZodObject> = zod.output<S> & { zaak: string };

interface NestedDef<D extends NestedDoc, S extends zod.ZodObject> {
  path: string;
  storeAs: string;
  resource: string;
  schema: zod.ZodType;
  input: S;
  scopes: { create: readonly string[]; update?: readonly string[]; destroy: readonly string[] };
  update?: boolean;
  link?: string;
  /** As ResourceDef.head and ResourceDef.auditHeaders: what the standard's file declares. */
  head?: boolean;
  auditHeaders?: readonly WriteActie[];
  /** The body the document declares on create and update, where the file requires more than the path gives. */
  declaredInput?: zod.ZodObject;
  rules: (input: WithZaak<S>, zaak: Stored<ZaakDoc>) => Promise<Omit<D, keyof NestedFacts>>;
  /** A rule of the DELETE operation (not of removals the platform makes itself). */
  beforeDestroy?: (current: Stored<D>, zaak: Stored<ZaakDoc>) => Promise<void>;
  /** Its name in the 1.7 file (its list and detail answer `...Expanded`), and whether they take `expand` there. */
  in17: { name: 'ZaakEigenschap' | 'ZaakBesluit'; expand: boolean };
  /** Whether it is a source of what a closed zaak derives of its archiving: its writes recompute that (herberekenen.ts). */
  archiefbron?: boolean;
}

/** The zaak facts a nested resource carries: its authorisation copies and the zaak it hangs under. */
function nestedFacts(zaak: Stored<ZaakDoc>): NestedFacts {
  return {
    ...partFacts(zaak),
    _zaakUuid: zaak._id,
    _bronorganisatie: zaak.bronorganisatie,
    _vertrouwelijkheidaanduiding: zaak.vertrouwelijkheidaanduiding,
  };
}

function registerNested<D extends NestedDoc, S extends zod.ZodObject>(z: Zaken, def: NestedDef<D, S>): NestedResource<D, zod.output<S>> {
  type I = zod.output<S>;
  const r = new NestedResource<D, I>(z.api, {
    collection: def.path,
    storeAs: def.storeAs,
    resource: def.resource,
    schema: def.schema,
    input: def.input,
    scopes: { read: READ, create: def.scopes.create, update: def.scopes.update ?? [], destroy: def.scopes.destroy },
    operations: [],
    auditHeaders: def.auditHeaders,
    kanaal: 'zaken',
    kenmerken: (doc) => ({
      bronorganisatie: doc._bronorganisatie,
      zaaktype: doc._zaaktype,
      vertrouwelijkheidaanduiding: doc._vertrouwelijkheidaanduiding ?? '',
    }),
    // (what the registration import stores through, parsed by Resource.parseInput: the zaak from the body, as the
    // path would give it)
    prepare: async (input, _ctx, current) => prepare(await zaakOf(z, String(input.zaak)), input, current),
    afterWrite: def.link
      ? async (stored) => void (await z.zaken.store.followUp({ _id: stored._zaakUuid }, { $addToSet: { [def.link!]: stored._id } }))
      : undefined,
  });
  const zaakFor = async (caller: Caller, uuid: string, scopes: readonly string[]) => {
    const zaak = await z.zaken.getOr404(uuid);
    mustMayOnZaak(caller, zaak, scopes);
    return zaak;
  };
  const partFor = async (zaak: Stored<ZaakDoc>, uuid: string) => {
    const doc = await r.store.findOne({ _id: uuid, _zaakUuid: zaak._id });
    if (!doc) throw ZgwError.notFound(`${def.resource} ${uuid} bestaat niet bij deze zaak.`);
    return doc;
  };
  /** The rules of a write, on its input parsed once (by the route, or after a PATCH's merge). */
  const prepare = async (zaak: Stored<ZaakDoc>, input: I, current?: Stored<D>): Promise<D> => {
    const zaakUrl = z.zaken.url(zaak._id);
    if (input.zaak !== undefined && input.zaak !== zaakUrl)
      throw ZgwError.field('zaak', 'wijzigen-niet-toegelaten', 'zaak moet de zaak uit het pad zijn.');
    mustBeUnchanged(current, input, ['eigenschap', 'besluit']);
    const doc = await def.rules({ ...input, zaak: zaakUrl }, zaak);
    return { ...doc, ...nestedFacts(zaak) } as D;
  };
  // A write to a source of a closed zaak's archiving marks the zaak first and recomputes it after (herberekenen.ts).
  const markeerVoor = async (zaak: Stored<ZaakDoc>) => !!def.archiefbron && (await markeer(z, zaak));
  const base = `/zaken/:zaak_uuid/${def.path}`;
  // 1.7: what the list and detail answer, with `expand` where the file declares it (to any depth; see expand.ts).
  const expandQuery = zod.object({ expand: zod.string().optional() });
  const in17 = (response: zod.ZodType) => ({ [V17]: { response, query: def.in17.expand ? expandQuery : undefined } });
  const allowed = new Set(EXPANDABLE17[def.in17.name]);
  const expanded = async (req: FastifyRequest, caller: Caller, bodies: ExpandedAnswer[], query: unknown) => {
    const version = z.api.version(req);
    if (version !== V17 || !def.in17.expand) return bodies;
    await expand(z, caller, bodies, parseExpand((query as { expand?: string } | undefined)?.expand, version, allowed), version);
    return bodies;
  };
  z.api.route({
    method: 'GET',
    path: base,
    operationId: `${def.resource}_list`,
    summary: `Alle ${def.path} van een zaak.`,
    scopes: READ,
    params: ZaakParams,
    response: zod.array(def.schema),
    variants: in17(zod.array(Expanded17[def.in17.name])),
    handler: async ({ req, caller, params, query }) => {
      const zaak = await zaakFor(caller, params.zaak_uuid, [LEZEN]);
      return expanded(req, caller, await Promise.all((await r.store.find({ _zaakUuid: zaak._id })).map((d) => r.toApi(d))), query);
    },
  });
  z.api.route({
    method: 'POST',
    path: base,
    operationId: `${def.resource}_create`,
    ...r.headersOf('create'),
    declared: { body: def.declaredInput },
    summary: `Maak een ${def.resource} aan.`,
    scopes: def.scopes.create,
    params: ZaakParams,
    body: def.input,
    response: def.schema,
    handler: async ({ req, caller, params, body }) => {
      const zaak = await zaakFor(caller, params.zaak_uuid, def.scopes.create);
      mustMayChangeClosed(caller, zaak);
      const doc = await prepare(zaak, body);
      const gemarkeerd = await markeerVoor(zaak);
      const stored = await r.insert(doc, r.ctx(caller, randomUUID(), req));
      if (gemarkeerd) await herbereken(z, zaak._id, caller);
      return r.toApi(stored);
    },
  });
  z.api.route({
    method: 'GET',
    path: `${base}/:uuid`,
    operationId: `${def.resource}_retrieve`,
    summary: `Een specifieke ${def.resource}.`,
    scopes: READ,
    params: ZaakPartParams,
    response: def.schema,
    variants: in17(Expanded17[def.in17.name]),
    etag: true,
    head: def.head ?? false,
    handler: async ({ req, caller, params, query }) => {
      const body = await r.toApi(await partFor(await zaakFor(caller, params.zaak_uuid, [LEZEN]), params.uuid));
      return (await expanded(req, caller, [body], query))[0];
    },
  });
  if (def.update) {
    for (const partial of [false, true]) {
      z.api.route({
        method: partial ? 'PATCH' : 'PUT',
        path: `${base}/:uuid`,
        operationId: `${def.resource}_${partial ? 'partial_update' : 'update'}`,
        ...r.headersOf(partial ? 'partial_update' : 'update'),
        // A PATCH body is parsed once, merged onto the stored object; the document declares the partial input.
        declared: { body: partial ? def.input.partial() : def.declaredInput },
        summary: `Werk een ${def.resource} bij.`,
        scopes: def.scopes.update ?? UPDATE,
        params: ZaakPartParams,
        body: partial ? undefined : def.input,
        response: def.schema,
        handler: async ({ req, caller, params, body }) => {
          const zaak = await zaakFor(caller, params.zaak_uuid, def.scopes.update ?? UPDATE);
          mustMayChangeClosed(caller, zaak);
          const current = await partFor(zaak, params.uuid);
          const input = partial ? parseOrThrow(def.input, { ...publicFields(current), ...jsonObject(body) }) : body;
          const doc = await prepare(zaak, input, current);
          const gemarkeerd = await markeerVoor(zaak);
          const stored = await r.update(current, doc, r.ctx(caller, current._id, req), partial ? 'partial_update' : 'update');
          if (!stored) throw ZgwError.notFound();
          if (gemarkeerd) await herbereken(z, zaak._id, caller);
          return r.toApi(stored);
        },
      });
    }
  }
  z.api.route({
    method: 'DELETE',
    path: `${base}/:uuid`,
    operationId: `${def.resource}_destroy`,
    ...r.headersOf('destroy'),
    summary: `Verwijder een ${def.resource}.`,
    scopes: def.scopes.destroy,
    params: ZaakPartParams,
    handler: async ({ req, caller, params }) => {
      const zaak = await zaakFor(caller, params.zaak_uuid, def.scopes.destroy);
      mustMayChangeClosed(caller, zaak);
      mustNotBeHeld(zaak);
      const current = await partFor(zaak, params.uuid);
      await def.beforeDestroy?.(current, zaak);
      const gemarkeerd = await markeerVoor(zaak);
      await r.destroy(current, r.ctx(caller, current._id, req));
      if (def.link) await z.zaken.store.raw.updateOne({ _id: zaak._id }, pull(def.link, current._id));
      if (gemarkeerd) await herbereken(z, zaak._id, caller);
      return undefined;
    },
  });
  return r;
}

export function registerZaakeigenschappen(z: Zaken): NestedResource<ZaakEigenschapDoc, zod.output<typeof ZaakEigenschapInput>> {
  return registerNested<ZaakEigenschapDoc, typeof ZaakEigenschapInput>(z, {
    in17: { name: 'ZaakEigenschap', expand: false },
    path: 'zaakeigenschappen',
    storeAs: 'zaakeigenschappen',
    resource: 'zaakeigenschap',
    schema: ZaakEigenschap,
    input: ZaakEigenschapInput,
    scopes: { create: UPDATE, update: UPDATE, destroy: UPDATE },
    update: true,
    head: true,
    auditHeaders: ['create'],
    // The file requires the zaak in the body too; the server takes it from the path.
    declaredInput: ZaakEigenschapInput.required({ zaak: true }),
    link: PART_LINKS.eigenschappen,
    // (afleidingswijze eigenschap: a closed zaak's archiving follows the waarde of its zaakeigenschappen)
    archiefbron: true,
    rules: async (doc, zaak) => {
      const eigenschap = await z.refs.mustCatalogus('eigenschappen', 'eigenschap', doc.eigenschap);
      if (eigenschap.zaaktype !== zaak.zaaktype) throw nonField('zaaktype-mismatch', 'De eigenschap hoort niet bij het zaaktype van de zaak.');
      return { ...doc, naam: String(eigenschap.naam) };
    },
  });
}

export function registerZaakbesluiten(z: Zaken): NestedResource<ZaakBesluitDoc, zod.output<typeof ZaakBesluitInput>> {
  return registerNested<ZaakBesluitDoc, typeof ZaakBesluitInput>(z, {
    in17: { name: 'ZaakBesluit', expand: true },
    path: 'besluiten',
    storeAs: 'zaakbesluiten',
    resource: 'zaakbesluit',
    schema: ZaakBesluit,
    input: ZaakBesluitInput,
    scopes: { create: [BIJWERKEN], destroy: [BIJWERKEN] },
    rules: async (doc, zaak) => {
      const { besluit } = doc;
      // A besluit of this platform names its zaak itself: the link follows it (and is made by the Besluiten API).
      const local = await z.api.deps.components.besluiten?.besluit(besluit);
      if (local === null) throw ZgwError.field('besluit', 'bad-url', `Het besluit ${besluit} bestaat niet.`);
      if (local && local.zaak !== doc.zaak) throw nonField('inconsistent-relation', 'Het besluit hoort volgens de Besluiten API niet bij deze zaak.');
      if (local === undefined) {
        const error = await z.refs.remote('besluit', besluit, (b) => 'besluittype' in b);
        if (error) throw ZgwError.validation([error]);
      }
      if ((await z.zaakbesluiten.store.find({ _zaakUuid: zaak._id })).some((l) => l.besluit === besluit)) {
        throw nonField('unique', 'Dit besluit is al aan deze zaak gekoppeld.');
      }
      return { besluit, zaak: doc.zaak };
    },
    beforeDestroy: async (current) => {
      const local = await z.api.deps.components.besluiten?.besluit(current.besluit);
      if (local && local.zaak === current.zaak) {
        throw nonField('inconsistent-relation', 'Het besluit verwijst nog naar deze zaak; wijzig of verwijder het besluit in de Besluiten API.');
      }
    },
  });
}

export function zaakbesluitLinks(z: Zaken, r: Resource<ZaakBesluitDoc>): ZaakBesluitLinks {
  // By zaak (few besluiten each), then by besluit: the lookup the zaak's own list uses.
  const linkOf = async (zaakUuid: string, besluit: string) => (await r.store.find({ _zaakUuid: zaakUuid })).find((l) => l.besluit === besluit);
  // (afleidingswijzen ingangsdatum_besluit and vervaldatum_besluit: a closed zaak's archiving follows its besluiten,
  // recomputed after each write of one, which voorWijziging marked it for: herberekenen.ts; zaakobject: the besluiten
  // its zaakobjecten point at, found by their `object`)
  const metObject = async (besluit: string) => [...new Set((await z.zaakobjecten.store.find({ object: besluit })).map((o) => o._zaakUuid))];
  return {
    link: async (zaakUrl, besluit, caller) => {
      const zaak = await z.zaken.byUrl(zaakUrl);
      if (!zaak) return;
      if (!(await linkOf(zaak._id, besluit)))
        await r.insert({ besluit, zaak: z.zaken.url(zaak._id), ...nestedFacts(zaak) }, r.ctx(caller, randomUUID()));
      if (volgt(zaak)) await herbereken(z, zaak._id, caller);
    },
    unlink: async (zaakUrl, besluit, caller) => {
      const zaakUuid = z.zaken.uuidOf(zaakUrl);
      const link = zaakUuid ? await linkOf(zaakUuid, besluit) : undefined;
      if (link) await r.destroy(link, r.ctx(caller, link._id));
      if (zaakUuid) await herbereken(z, zaakUuid, caller);
    },
    voorWijziging: async (besluit, zaken) => {
      const ids = [...zaken.map((url) => z.zaken.uuidOf(url)), ...(await metObject(besluit))].filter((id): id is string => !!id);
      if (ids.length) for (const zaak of await z.zaken.store.getMany([...new Set(ids)])) await markeer(z, zaak);
    },
    gewijzigd: async (besluit, caller) => {
      for (const id of await metObject(besluit)) await herbereken(z, id, caller);
    },
  };
}

/** The audit trail of a zaak (see common/audit/audittrail). */
export function registerAudittrail(z: Zaken): void {
  // Read with audittrails.lezen for the zaak's zaaktype, up to its maxVertrouwelijkheidaanduiding.
  registerCommonAudittrail(z.api, z.zaken, 'zaak_uuid', (zaak, caller) => mayOnZaak(caller, zaak, ['audittrails.lezen']));
}
