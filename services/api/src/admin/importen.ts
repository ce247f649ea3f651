import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { ComponentApi, Deps } from '../common/component';
import { ZgwError } from '../common/errors';
import { alsHistorie, Resource, type ImportUitkomst } from '../common/resource';
import type { JsonObject } from '../common/schema-parts';
import { UUID } from '../common/urls';
import { parseOrThrow } from '../common/validation';
import { adminCaller } from './rights';

/** The components whose objects a registration import brings (the Catalogi come as a catalogus, see uitwisseling). */
export const IMPORT_COMPONENTS = ['zaken', 'documenten', 'besluiten', 'catalogi'] as const;

const Url = z.string().url().max(1000);

/** One batch of the registration import: objects of another registration as its APIs show them. */
const ImportBatch = z.object({
  /** The import run (its workflow), named in each object's audit entry. */
  run: z.string().min(1).max(200),
  /** The source registration: its base URL, and where it serves each API (`<bron>/<component>/api/v1` by default). */
  bron: Url,
  apis: z.object(
    Object.fromEntries(IMPORT_COMPONENTS.map((c) => [c, Url.optional()])) as Record<(typeof IMPORT_COMPONENTS)[number], z.ZodOptional<typeof Url>>,
  ),
  objecten: z.array(z.record(z.string(), z.unknown())).max(500),
});
type ImportBatch = z.infer<typeof ImportBatch>;

/** What became of one object of a batch: written (`nieuw`, `bijgewerkt`), its UUID taken (`bezet`), or refused. */
export interface ImportResultaat {
  url: string;
  uitkomst: ImportUitkomst | 'mislukt';
  reden?: string;
}

/**
 * The writes of the registration import (README: Moving in), for the import worker: `POST
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
  // The content of a document version, streamed (any size): `PUT /admin/api/v1/importen/inhoud` with the bytes as
  // body (application/octet-stream); answers the stored file ({id, size, sha256}) that the version's `_bestand` names.
  await app.register(async (scope) => {
    scope.addContentTypeParser('application/octet-stream', (_req, payload, done) => done(null, payload));
    scope.put('/admin/api/v1/importen/inhoud', async (req, reply) => {
      await importeur(req);
      const documenten = deps.components.documenten;
      if (!documenten) throw new ZgwError(503, 'unavailable', 'De Documenten API is niet geladen.');
      if (!req.body || typeof (req.body as AsyncIterable<Buffer>)[Symbol.asyncIterator] !== 'function')
        throw ZgwError.field('inhoud', 'required', 'Stuur de inhoud als body met Content-Type application/octet-stream.');
      const file = await documenten.bewaarInhoud(req.body as AsyncIterable<Buffer>);
      return reply.code(201).send(file);
    });
  });
  app.post('/admin/api/v1/importen/objecten', { bodyLimit: 64 * 1024 * 1024 }, async (req) => {
    const caller = await importeur(req);
    const batch = parseOrThrow(ImportBatch, req.body ?? {});
    const kaart = new Bronkaart(batch, apis);
    const resultaten: ImportResultaat[] = [];
    const touched = new Set<string>();
    for (const source of batch.objecten) {
      const url = String(source.url ?? '');
      try {
        const { resource, uuid } = kaart.resourceOf(url);
        const uitkomst = await alsHistorie({ run: batch.run, bron: batch.bron }, () =>
          resource.importeer(kaart.rewrite(source) as JsonObject, uuid, resource.ctx(caller, uuid)),
        );
        if (uitkomst !== 'bezet') touched.add(resource.api.def.name);
        resultaten.push({ url, uitkomst });
      } catch (err) {
        resultaten.push({ url, uitkomst: 'mislukt', reden: reasonOf(err) });
      }
    }
    // as any write: the read caches of what changed go, here and in the other instances
    for (const name of touched) if (deps.caches.has(name)) deps.caches.clear(name);
    const count = (u: ImportResultaat['uitkomst']) => resultaten.filter((r) => r.uitkomst === u).length;
    req.log.info(
      { run: batch.run, bron: batch.bron, nieuw: count('nieuw'), bijgewerkt: count('bijgewerkt'), bezet: count('bezet'), mislukt: count('mislukt') },
      'import batch stored',
    );
    return { resultaten };
  });
}

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
  resourceOf(url: string): { resource: Resource<JsonObject>; uuid: string } {
    const hit = this.bases.find(([base]) => url.startsWith(`${base}/`));
    if (!hit) throw ZgwError.field('url', 'bad-url', `${url} ligt niet onder een API van de bron.`);
    const [base, api] = hit;
    const segments = url
      .slice(base.length + 1)
      .replace(/\/+$/, '')
      .split('/');
    const [collection, uuid] = segments.slice(-2);
    const resource = api.resources.find((r): r is Resource<JsonObject> => r instanceof Resource && r.def.collection === collection);
    if (!resource || !uuid || !UUID.test(uuid)) throw ZgwError.field('url', 'bad-url', `${url} is geen object dat de import kent.`);
    return { resource, uuid: uuid.toLowerCase() };
  }

  /** The object with every URL of the source replaced by ours. */
  rewrite(value: unknown): unknown {
    if (typeof value === 'string') {
      const hit = this.bases.find(([base]) => value === base || value.startsWith(`${base}/`));
      return hit ? `${hit[1].base}${value.slice(hit[0].length)}` : value;
    }
    if (Array.isArray(value)) return value.map((v) => this.rewrite(v));
    if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, this.rewrite(v)]));
    return value;
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
