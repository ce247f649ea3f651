import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { MongoBulkWriteError, type Document } from 'mongodb';
import {
  AUDITTRAIL_COLLECTION,
  AuditEntry,
  IMPORT_MAX_FOUTEN,
  IMPORT_OBJECTEN,
  IMPORT_PAGINAS,
  IMPORT_PROEF,
  IMPORT_TYPEN,
  IMPORTEN_COLLECTION,
  ImportAanvraag,
  ImportApis,
  InhoudControleVraag,
  type InhoudControle,
  legeTelling,
  mapStrings,
  platformDb,
  sealSecret,
  type ImportObject,
  type ImportOpdracht,
  type ImportPagina,
  type ImportStatus,
  type ImportTelling,
  type StoredImport,
  zijAanZij,
} from '@zgw/shared';
import type { Caller } from '../common/auth/auth';
import { z } from 'zod';
import type { ComponentApi, Deps } from '../common/platform/component';
import { ZgwError } from '../common/http/errors';
import { alsHistorie, Resource, type Gehouden, type ImportUitkomst } from '../common/platform/resource';
import { alsProef } from '../common/storage/store';
import type { JsonObject } from '@zgw/shared';
import { UUID } from '../common/http/urls';
import { sealPii } from '../common/resources/pii-fields';
import { parseLiberal, parseOrThrow } from '../common/http/validation';
import { ImportClient } from './import-client';
import { adminCaller } from './rights';

/** The source's APIs a run reads or refers to (its Catalogi came before, as a catalogus: see uitwisseling). */
export const IMPORT_COMPONENTS = Object.keys(ImportApis.shape) as (keyof ImportApis)[];

const Url = z.string().url().max(1000);

/** One batch of the registration import: objects of another registration as its APIs show them. */
const ImportBatch = z.object({
  /** The import run (its workflow), named in each object's audit entry. */
  run: z.string().min(1).max(200),
  /** The source registration: its base URL, and where it serves each API (`<bron>/<component>/api/v1` by default). */
  bron: Url,
  apis: ImportApis,
  objecten: z.array(z.record(z.string(), z.unknown())).max(500),
  /** A limited run: an object whose zaak, besluit or document is not here (not in the selection) is `overgeslagen`. */
  selectie: z.boolean().default(false),
  /** A dry run: each object through the rules, its outcome told, nothing stored (Resource.importeer). */
  proef: z.boolean().default(false),
});
type ImportBatch = z.infer<typeof ImportBatch>;

/** A catalogus of the source: its objects by the file a catalogus ZIP keeps them in (`Catalogus`, `ZaakType` ...). */
const ImportCatalogus = z.object({
  run: z.string().min(1).max(200),
  proef: z.boolean().default(false),
  bestanden: z.record(z.string().regex(/^[A-Za-z]+$/), z.array(z.unknown())),
});

/**
 * What became of one object of a batch: written (`nieuw`, `bijgewerkt`), its UUID taken (`bezet`), outside a limited
 * run's selection (`overgeslagen`), or refused.
 */
export interface ImportResultaat {
  url: string;
  uitkomst: ImportUitkomst | 'mislukt' | 'overgeslagen';
  reden?: string;
  /** Our URL of the object (written or not). */
  hier?: string;
}

/**
 * The writes of the registration import (docs/moving-in.md), for the import worker: `POST
 * /admin/api/v1/importen/objecten` with a batch of another registration's objects, each stored under its own UUID
 * through its resource's rules in history mode (Resource.importeer), in the order given, into the caller's tenant (a
 * platform administrator names it with `Zgw-Tenant`). The source's URLs become ours by their base; references to the
 * source's Catalogi resolve to the imported catalogus by UUID. Answers what became of each object; one that cannot be
 * stored is reported with the reason, the others are stored all the same.
 */
export async function registerImportenAdmin(app: FastifyInstance, deps: Deps, apis: ComponentApi[]): Promise<void> {
  const importeur = async (req: FastifyRequest) => {
    const caller = await adminCaller(deps, req, 'registraties importeren');
    if (!caller.platformAdmin) throw ZgwError.forbidden('Alleen beheerders van het platform importeren registraties.', 'platform-admin');
    return caller;
  };
  // the writes of a run: its worker (acting within the run's tenant) or a platform administrator
  const schrijver = async (req: FastifyRequest) => {
    const caller = await deps.auth.authenticate(req);
    return caller.worker ? caller : importeur(req);
  };
  // The content of a document version, streamed (any size): `PUT /admin/api/v1/importen/inhoud` with the bytes as
  // body (application/octet-stream); answers the stored file ({id, size, sha256}) that the version's `_bestand` names.
  await app.register(async (scope) => {
    scope.addContentTypeParser('application/octet-stream', (_req, payload, done) => done(null, payload));
    scope.put('/admin/api/v1/importen/inhoud', async (req, reply) => {
      await schrijver(req);
      const documenten = deps.components.documenten;
      if (!documenten) throw new ZgwError(503, 'unavailable', 'De Documenten API is niet geladen.');
      if (!req.body || typeof (req.body as AsyncIterable<Buffer>)[Symbol.asyncIterator] !== 'function')
        throw ZgwError.field('inhoud', 'required', 'Stuur de inhoud als body met Content-Type application/octet-stream.');
      const body = req.body as Readable;
      const max = deps.config.IMPORT_MAX_INHOUD_BYTES;
      if (Number(req.headers['content-length']) > max) throw teGroot(max);
      const file = await documenten.bewaarInhoud(tenHoogste(body, max));
      return reply.code(201).send(file);
    });
  });
  // The content check's view of our side: `POST /admin/api/v1/importen/inhoud-controle` with our URLs of documents
  // (InhoudControleVraag); answers each one's versions with the size and SHA-256 of their content (InhoudControle).
  app.post('/admin/api/v1/importen/inhoud-controle', async (req) => {
    await schrijver(req);
    const { documenten } = parseOrThrow(InhoudControleVraag, req.body ?? {});
    const links = deps.components.documenten;
    if (!links) throw new ZgwError(503, 'unavailable', 'De Documenten API is niet geladen.');
    return { documenten: await links.inhoudControle(documenten) } satisfies InhoudControle;
  });
  await registerRuns(app, deps, importeur);
  // A catalogus the source uses that is not here yet, brought first: `POST /admin/api/v1/importen/catalogus` with the
  // source's Catalogi objects as a catalogus ZIP holds them (ImportCatalogus), imported as that ZIP would be (UUIDs
  // kept, all or nothing; in a dry run only through the rules, kept aside for the run).
  app.post('/admin/api/v1/importen/catalogus', { bodyLimit: 64 * 1024 * 1024 }, async (req, reply) => {
    const caller = await schrijver(req);
    const body = parseOrThrow(ImportCatalogus, req.body ?? {});
    const catalogi = deps.components.catalogi;
    if (!catalogi) throw new ZgwError(503, 'unavailable', 'De Catalogi API is niet geladen.');
    const files = new Map(Object.entries(body.bestanden).map(([name, list]) => [`${name}.json`, JSON.stringify(list)]));
    const report = await catalogi.uitwisseling.import(files, { proef: body.proef ? body.run : undefined }, caller);
    req.log.info(
      { run: body.run, catalogus: report.catalogus, bron: report.bron, aantallen: report.aantallen, proef: body.proef },
      'import catalogus',
    );
    return reply.code(body.proef ? 200 : 201).send(report);
  });
  app.post('/admin/api/v1/importen/objecten', { bodyLimit: 64 * 1024 * 1024 }, async (req) => {
    const caller = await schrijver(req);
    const batch = parseOrThrow(ImportBatch, req.body ?? {});
    const kaart = new Bronkaart(batch, apis);
    const resultaten: ImportResultaat[] = [];
    const touched = new Set<string>();
    const herkomst = { run: batch.run, bron: batch.bron, proef: batch.proef };
    // (a dry run reads what it would have stored before, as the real run would read it: alsProef)
    const binnen = <T>(fn: () => Promise<T>) => alsHistorie(herkomst, () => (batch.proef ? alsProef(batch.run, fn) : fn()));
    const plaatsen = kaart.plaatsen(batch.objecten);
    const gehouden = await kaart.gehouden(plaatsen);
    const importeer = async (source: JsonObject, plaats: Plaats): Promise<ImportResultaat> => {
      const url = String(source.url ?? '');
      const object = kaart.rewrite(source) as JsonObject;
      try {
        if ('fout' in plaats) throw plaats.fout;
        const { resource, uuid } = plaats;
        const uitkomst = await resource.importeer(object, uuid, resource.ctx(caller, uuid), gehouden.get(resource));
        if (uitkomst !== 'bezet' && !batch.proef) touched.add(resource.api.def.name);
        return { url, uitkomst, hier: String(object.url ?? '') };
      } catch (err) {
        const buiten = batch.selectie && (await kaart.ouderOntbreekt(object));
        return buiten ? { url, uitkomst: 'overgeslagen' } : { url, uitkomst: 'mislukt', reden: reasonOf(err) };
      }
    };
    await binnen(() =>
      zijAanZij(groepen(batch.objecten as JsonObject[]), IMPORT_PARALLEL, async (groep) => {
        for (const [i, source] of groep) resultaten[i] = await importeer(source, plaatsen[i]!);
      }),
    );
    // as any write: the read caches of what changed go, here and in the other instances
    for (const name of touched) if (deps.caches.has(name)) deps.caches.clear(name);
    const count = (u: ImportResultaat['uitkomst']) => resultaten.filter((r) => r.uitkomst === u).length;
    req.log.info(
      { run: batch.run, bron: batch.bron, nieuw: count('nieuw'), bijgewerkt: count('bijgewerkt'), bezet: count('bezet'), mislukt: count('mislukt') },
      'import batch stored',
    );
    return { resultaten };
  });
  // The source's own audit trail: `POST /admin/api/v1/importen/audittrail`, a batch whose objects are its AuditTrail
  // entries (of zaken, documents, besluiten), each stored under its own UUID once, with its URLs ours and the personal
  // identifiers in its `wijzigingen` sealed as in any entry.
  app.post('/admin/api/v1/importen/audittrail', { bodyLimit: 64 * 1024 * 1024 }, async (req) => {
    const caller = await schrijver(req);
    const batch = parseOrThrow(ImportBatch, req.body ?? {});
    const kaart = new Bronkaart(batch, apis);
    const trail = deps.db.collection<{ _id: string }>(AUDITTRAIL_COLLECTION);
    const resultaten: ImportResultaat[] = [];
    const entries: { i: number; doc: Record<string, unknown> & { uuid: string } }[] = [];
    batch.objecten.forEach((source, i) => {
      const url = String(source.uuid ?? '');
      try {
        const view = kaart.rewrite(source) as JsonObject;
        // (a trail shows only the sides a write has: a create has no `oud`)
        const w = (view.wijzigingen ?? {}) as { oud?: unknown; nieuw?: unknown };
        const wijzigingen = { oud: w.oud ?? null, nieuw: w.nieuw ?? null };
        const entry = parseLiberal(AuditEntry, { ...view, wijzigingen, bron: String(source.bron ?? '').toUpperCase() });
        entries.push({ i, doc: { ...entry, wijzigingen: sealPii(deps.pii, entry.wijzigingen) } });
        resultaten[i] = { url, uitkomst: 'bijgewerkt' };
      } catch (err) {
        resultaten[i] = { url, uitkomst: 'mislukt', reden: reasonOf(err) };
      }
    });
    // one round trip: each entry inserted once (an entry already here stays as it is: `bijgewerkt`)
    const ops = entries.map(({ doc }) => ({ updateOne: { filter: { _id: doc.uuid }, update: { $setOnInsert: doc }, upsert: true } }));
    const upserted = await (ops.length ? trail.bulkWrite(ops, { ordered: false }) : Promise.resolve({ upsertedIds: {} }))
      .then((r) => r.upsertedIds)
      .catch((err: unknown) => {
        if (!(err instanceof MongoBulkWriteError) || err.writeConcernError) throw err;
        const errors = Array.isArray(err.writeErrors) ? err.writeErrors : [err.writeErrors];
        for (const e of errors) {
          const r = resultaten[entries[e.index]!.i]!;
          // (an entry of another tenant under the same UUID: its insert meets the unique _id)
          Object.assign(r, e.code === 11000 ? { uitkomst: 'bezet' } : { uitkomst: 'mislukt', reden: e.errmsg ?? 'niet bewaard' });
        }
        return err.result.upsertedIds;
      });
    for (const index of Object.keys(upserted)) resultaten[entries[Number(index)]!.i]!.uitkomst = 'nieuw';
    req.log.info({ run: batch.run, bron: batch.bron, entries: resultaten.length, by: caller.clientId }, 'import audit entries stored');
    return { resultaten };
  });
}

const teGroot = (max: number) =>
  new ZgwError(413, 'inhoud-te-groot', `De inhoud is groter dan de grens van de import (IMPORT_MAX_INHOUD_BYTES: ${max} bytes).`);

/**
 * The bytes of `body`, or a 413 once more than `max` came (what was stored of it is removed: fromStream aborts). The
 * rest of the body is left unread rather than cut off, so the answer reaches the client before its connection ends.
 */
async function* tenHoogste(body: Readable, max: number): AsyncIterable<Buffer> {
  const chunks = body[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  for (let n = 0; ;) {
    const { value, done } = await chunks.next();
    if (done) return;
    n += value.length;
    if (n > max) throw teGroot(max);
    yield value;
  }
}

/** Objects of one batch stored at once (groepen). */
const IMPORT_PARALLEL = 128;

/**
 * A batch's objects by what they belong to, each with its place: objects that name one another (a status and its zaak,
 * a zaakinformatieobject and its zaak and document, a document's versions) one after another in the order given,
 * the others side by side.
 */
function groepen(objecten: JsonObject[]): [number, JsonObject][][] {
  // union-find over the objects, joined by the URLs they are or name
  const root = objecten.map((_, i) => i);
  const find = (i: number): number => (root[i] === i ? i : (root[i] = find(root[i]!)));
  const first = new Map<string, number>();
  objecten.forEach((o, i) => {
    for (const key of [o.url, o.zaak, o.besluit, o.informatieobject]) {
      if (typeof key !== 'string' || !key) continue;
      const j = first.get(key);
      if (j === undefined) first.set(key, i);
      else root[find(i)] = find(j);
    }
  });
  const out = new Map<number, [number, JsonObject][]>();
  objecten.forEach((o, i) => {
    const r = find(i);
    const groep = out.get(r);
    if (groep) groep.push([i, o]);
    else out.set(r, [[i, o]]);
  });
  return [...out.values()];
}

/** The resource of a component served under `/<collection>`. */
function resourceIn(api: ComponentApi, collection: string | undefined): Resource<Document> | undefined {
  return api.resources.find((r): r is Resource<Document> => r instanceof Resource && r.def.collection === collection);
}

/** Where a source object goes: its resource and UUID here, or why the import does not know it. */
type Plaats = { resource: Resource<Document>; uuid: string } | { fout: unknown };

/** How the source's URLs map onto this platform's: by the base of each component's API. */
class Bronkaart {
  /** Source API base to this platform's, longest first (a base may lie under another). */
  private readonly bases: [string, ComponentApi][];

  constructor(batch: ImportBatch, apis: ComponentApi[]) {
    const trim = (u: string) => u.replace(/\/+$/, '');
    this.bases = IMPORT_COMPONENTS.flatMap((name): [string, ComponentApi][] => {
      const api = apis.find((a) => a.def.name === name);
      return api ? [[trim(batch.apis[name] ?? `${trim(batch.bron)}/${name}/api/v1`), api]] : [];
    }).sort((a, b) => b[0].length - a[0].length);
  }

  /** The resource a source object belongs to and its UUID, from its URL (`.../<collection>/<uuid>`). */
  resourceOf(url: string): { resource: Resource<Document>; uuid: string } {
    const hit = this.bases.find(([base]) => url.startsWith(`${base}/`));
    if (!hit) throw ZgwError.field('url', 'bad-url', `${url} ligt niet onder een API van de bron.`);
    const [base, api] = hit;
    const segments = url
      .slice(base.length + 1)
      .replace(/\/+$/, '')
      .split('/');
    const [collection, uuid] = segments.slice(-2);
    const resource = resourceIn(api, collection);
    if (!resource || !uuid || !UUID.test(uuid)) throw ZgwError.field('url', 'bad-url', `${url} is geen object dat de import kent.`);
    return { resource, uuid: uuid.toLowerCase() };
  }

  /** Each object's resource and UUID (resourceOf), or why the import does not know it (reported in its turn). */
  plaatsen(objecten: ImportBatch['objecten']): Plaats[] {
    return objecten.map((o) => {
      try {
        return this.resourceOf(String(o.url ?? ''));
      } catch (fout) {
        return { fout };
      }
    });
  }

  /** What is held under the UUIDs of a batch's objects, read per resource at once (Resource.gehouden). */
  async gehouden(plaatsen: Plaats[]): Promise<Map<Resource<Document>, Gehouden>> {
    const uuids = new Map<Resource<Document>, string[]>();
    for (const plaats of plaatsen) {
      if ('fout' in plaats) continue;
      const list = uuids.get(plaats.resource);
      if (list) list.push(plaats.uuid);
      else uuids.set(plaats.resource, [plaats.uuid]);
    }
    const reads = [...uuids].map(async ([resource, list]): Promise<[Resource<Document>, Gehouden]> => [resource, await resource.gehouden(list)]);
    return new Map(await Promise.all(reads));
  }

  /**
   * Whether the object it belongs to (its zaak, else its besluit, else its document: the first it names) is not on this
   * platform, as a URL of ours (the source's rewritten).
   */
  async ouderOntbreekt(object: JsonObject): Promise<boolean> {
    const field = ['zaak', 'besluit', 'informatieobject'].find((f) => typeof object[f] === 'string' && object[f] !== '');
    const url = field ? String(object[field]) : '';
    const api = this.bases.map(([, a]) => a).find((a) => url.startsWith(`${a.base}/`));
    if (!api) return false;
    const resource = resourceIn(api, url.slice(api.base.length + 1).split('/')[0]);
    return !!resource && !(await resource.byUrl(url));
  }

  /**
   * The object with every URL of the source replaced by ours, in our form: without a trailing slash (a source may
   * name its objects either way).
   */
  rewrite(value: unknown): unknown {
    return mapStrings(value, (s) => {
      const hit = this.bases.find(([base]) => s === base || s.startsWith(`${base}/`));
      return hit ? `${hit[1].base}${s.slice(hit[0].length).replace(/\/+$/, '')}` : s;
    });
  }
}

/** Why an object was not stored: the rule it broke (a ZGW error's fields), else the error's message. */
function reasonOf(err: unknown): string {
  if (err instanceof ZgwError) {
    const params = (err.invalidParams ?? []).map((p) => `${p.name}: ${p.reason}`).join('; ');
    return `${err.code}: ${params || err.message}`.slice(0, 1000);
  }
  return String((err as Error)?.message ?? err).slice(0, 1000);
}

/** A run as the admin API shows it: the request (no secret), its status, what became of each collection, the failures. */
export interface ImportView {
  id: string;
  tenant: string;
  bron: string;
  apis: ImportApis;
  clientId: string;
  dryRun: boolean;
  status: ImportStatus;
  aangemaakt: string;
  bijgewerkt: string;
  door: string;
  tellingen: Record<string, ImportTelling>;
  fouten: { url: string; reden: string }[];
  selectie?: StoredImport['selectie'];
  gelijktijdig?: number;
  timeoutSeconden?: number;
  /** How the source answers (requests per second, p95 latency): see BronTempo. */
  tempo?: StoredImport['tempo'];
  verificatie?: StoredImport['verificatie'];
  inhoudVerificatie?: StoredImport['inhoudVerificatie'];
  /** Whether what the source deleted since the previous run is removed here, and what was (see ImportOpruiming). */
  verwijderen?: boolean;
  opruiming?: StoredImport['opruiming'];
  fout?: string;
}

/**
 * The runs of the registration import, for the admin endpoints and `npm run admin -- importeren`: started (kept with
 * the source's secret sealed, then workflow `import-<id>` of the transfer worker), shown, steered.
 */
export class ImportRuns {
  private readonly workflow: ImportClient;

  constructor(private readonly deps: Deps) {
    this.workflow = new ImportClient(deps.config, deps.temporal);
  }

  private get runs() {
    return platformDb(this.deps.db).collection<StoredImport>(IMPORTEN_COLLECTION);
  }

  async ensureIndexes(): Promise<void> {
    await this.runs.createIndex({ tenant: 1, aangemaakt: -1 });
    await platformDb(this.deps.db).collection(IMPORT_PAGINAS).createIndex({ run: 1, soort: 1 });
    await platformDb(this.deps.db).collection(IMPORT_PROEF).createIndex({ run: 1 });
    await platformDb(this.deps.db).collection(IMPORT_TYPEN).createIndex({ run: 1 });
    await platformDb(this.deps.db).collection(IMPORT_OBJECTEN).createIndex({ run: 1, soort: 1 });
  }

  async get(id: string): Promise<StoredImport> {
    const run = UUID.test(id) ? await this.runs.findOne({ _id: id }) : null;
    if (!run) throw ZgwError.notFound(`Import ${id} bestaat niet.`);
    return run;
  }

  /** The newest runs into a tenant. */
  list(tenant: string): Promise<StoredImport[]> {
    return this.runs.find({ tenant }).sort({ tenant: 1, aangemaakt: -1 }).limit(100).toArray();
  }

  /** Starts a run into `caller`'s tenant; a 503 (and the run `mislukt`) when Temporal cannot be reached. */
  async start(body: unknown, caller: Caller): Promise<StoredImport> {
    const aanvraag = parseOrThrow(ImportAanvraag, body ?? {});
    const now = new Date();
    const run: StoredImport = {
      _id: randomUUID(),
      tenant: caller.tenant,
      bron: aanvraag.bron.replace(/\/+$/, ''),
      apis: aanvraag.apis,
      clientId: aanvraag.clientId,
      secret: sealSecret(this.deps.pii, 'importBron', aanvraag.secret),
      dryRun: aanvraag.dryRun,
      ...selectieVan(aanvraag),
      gelijktijdig: aanvraag.gelijktijdig,
      ...(aanvraag.timeout ? { timeoutSeconden: aanvraag.timeout } : {}),
      verwijderen: aanvraag.verwijderen,
      status: 'bezig',
      aangemaakt: now,
      bijgewerkt: now,
      door: caller.clientId,
    };
    await this.runs.insertOne(run);
    const log = { run: run._id, tenant: run.tenant, bron: run.bron, dryRun: run.dryRun, by: caller.clientId };
    try {
      const opdracht: ImportOpdracht = { run: run._id, tenant: run.tenant, hartslagSeconden: this.deps.config.TRANSFER_HEARTBEAT_SECONDS };
      await this.workflow.start(opdracht);
    } catch (err) {
      await this.runs.updateOne({ _id: run._id }, { $set: { status: 'mislukt', fout: `niet gestart: ${(err as Error).message}` } });
      this.deps.log.error({ err, ...log }, 'import not started: Temporal unreachable');
      throw new ZgwError(503, 'unavailable', 'De import kon niet starten: Temporal is niet bereikbaar. Probeer het later opnieuw.');
    }
    this.deps.log.info(log, 'import started');
    return run;
  }

  /**
   * The run's URL map (the cut-over): `bron_url,onze_url`, one line per object the import brought from the source and
   * holds here after the run (what it brought, and what an earlier run brought that it carried over), each once, by
   * collection; for the systems that still hold the source's URLs. A dry run brings nothing: the header only.
   */
  async *urlKaart(run: StoredImport): AsyncIterable<string> {
    yield 'bron_url,onze_url\n';
    const objecten = platformDb(this.deps.db).collection<ImportObject>(IMPORT_OBJECTEN).find({ run: run._id }).sort({ run: 1, soort: 1 });
    let regels: string[] = [];
    for await (const o of objecten) {
      if (!o.hier) continue;
      regels.push(`${csv(o.bron)},${csv(o.hier)}\n`);
      if (regels.length >= 500) {
        yield regels.join('');
        regels = [];
      }
    }
    if (regels.length) yield regels.join('');
  }

  /** Pauses (after the page under way), resumes or cancels a run that is under way (409 when it has ended). */
  async steer(id: string, actie: 'pauzeren' | 'hervatten' | 'annuleren', caller: Caller): Promise<StoredImport> {
    const run = await this.get(id);
    if (run.status !== 'bezig' && run.status !== 'gepauzeerd') throw new ZgwError(409, 'import-afgelopen', `De import is al ${run.status}.`);
    await this.workflow.steer(run._id, actie);
    if (actie !== 'annuleren') {
      await this.runs.updateOne({ _id: run._id }, { $set: { status: actie === 'pauzeren' ? 'gepauzeerd' : 'bezig', bijgewerkt: new Date() } });
    }
    this.deps.log.info({ run: run._id, actie, by: caller.clientId }, `import ${actie}`);
    return this.get(run._id);
  }

  /** A run as the admin API shows it: the request (no secret), its status, each collection's counts, the failures. */
  async view(run: StoredImport): Promise<ImportView> {
    const tellingen: Record<string, ImportTelling> = {};
    const fouten: ImportView['fouten'] = [];
    const pages = platformDb(this.deps.db).collection<ImportPagina>(IMPORT_PAGINAS).find({ run: run._id }).sort({ run: 1, soort: 1 });
    for await (const p of pages) {
      const t = (tellingen[p.soort] ??= legeTelling());
      for (const k of Object.keys(t) as (keyof ImportTelling)[]) t[k] += p.telling[k] ?? 0;
      for (const f of p.fouten) if (fouten.length < IMPORT_MAX_FOUTEN) fouten.push(f);
    }
    const { _id, secret: _secret, aangemaakt, bijgewerkt, ...rest } = run;
    return { id: _id, ...rest, aangemaakt: aangemaakt.toISOString(), bijgewerkt: bijgewerkt.toISOString(), tellingen, fouten };
  }
}

/** A field of a CSV line: quoted when it holds a comma, a quote or a line break. */
const csv = (v: string): string => (/[",\r\n]/.test(v) ? `"${v.replaceAll('"', '""')}"` : v);

/** A limited run's selection (see ImportAanvraag), or nothing for a whole registration. */
function selectieVan(a: ImportAanvraag): Pick<StoredImport, 'selectie'> {
  const { zaaktypen, vanaf, tot, bronorganisatie } = a;
  if (!zaaktypen.length && !vanaf && !tot && !bronorganisatie) return {};
  return { selectie: { zaaktypen, ...(vanaf ? { vanaf } : {}), ...(tot ? { tot } : {}), ...(bronorganisatie ? { bronorganisatie } : {}) } };
}

/**
 * The runs over HTTP: `POST /admin/api/v1/importen` starts one into the caller's tenant (a platform administrator
 * names another with `Zgw-Tenant`), `GET /admin/api/v1/importen[/{id}]` shows them with their progress,
 * `POST /admin/api/v1/importen/{id}/pauzeren|hervatten|annuleren` steers one.
 */
async function registerRuns(app: FastifyInstance, deps: Deps, importeur: (req: FastifyRequest) => Promise<Caller>): Promise<void> {
  const runs = new ImportRuns(deps);
  await runs.ensureIndexes();
  app.post('/admin/api/v1/importen', async (req, reply) => reply.code(201).send(await runs.view(await runs.start(req.body, await importeur(req)))));
  app.get('/admin/api/v1/importen', async (req) => {
    const caller = await importeur(req);
    return Promise.all((await runs.list(caller.tenant)).map((r) => runs.view(r)));
  });
  app.get<{ Params: { id: string } }>('/admin/api/v1/importen/:id', async (req) => {
    await importeur(req);
    return runs.view(await runs.get(req.params.id));
  });
  // the run's URL map (CSV): every source URL with ours, for the systems that still hold the source's
  app.get<{ Params: { id: string } }>('/admin/api/v1/importen/:id/url-kaart', async (req, reply) => {
    await importeur(req);
    const run = await runs.get(req.params.id);
    return reply
      .header('content-type', 'text/csv; charset=utf-8')
      .header('content-disposition', `attachment; filename="url-kaart-${run._id}.csv"`)
      .send(Readable.from(runs.urlKaart(run)));
  });
  for (const actie of ['pauzeren', 'hervatten', 'annuleren'] as const)
    app.post<{ Params: { id: string } }>(`/admin/api/v1/importen/:id/${actie}`, async (req) =>
      runs.view(await runs.steer(req.params.id, actie, await importeur(req))),
    );
}
