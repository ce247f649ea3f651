import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';

/**
 * A source of the registration import that behaves as Open Zaak 1.21.0 does (issue 63), in front of an instance of
 * this platform: every request goes through to it (its URLs made the stand-in's, both ways), and the answers are
 * changed as Open Zaak's serializers have them:
 * - the fields its models keep nullable are `null` when they are empty, also where the standard does not mark them
 *   nullable (a status's `gezetdoor`, a zaakobject's `zaakobjecttype` ...: OZ_NULL);
 * - a list says no `count` (a source may leave it out);
 * - each object has a field the standard does not list;
 * - a status names its URL and its zaak with a trailing slash (the other URL form);
 * - the audit trail of a zaak in `legeTrails` is a 404 (Open Zaak's answer for a zaak without trail entries);
 * - a zaak in `ormZaken` has `""` for its choice fields left empty (`vertrouwelijkheidaanduiding`), as one its ORM made;
 * - with `lijstInhoud`, the list of documents gives every document the `inhoud` with the `?versie=` of the list's first.
 * The test steers how it answers (a delay, a status, a hang of the first requests of a path) and reads what it was
 * asked: every request, and the most requests it had under way at once.
 */
export class OpenZaakBron {
  /** The zaken (UUIDs) whose audit trail is a 404. */
  readonly legeTrails = new Set<string>();
  /** The zaken (UUIDs) made by Open Zaak's ORM: `vertrouwelijkheidaanduiding: ""`. */
  readonly ormZaken = new Set<string>();
  /** Whether the list of documents names every document's content with the `?versie=` of its first (Open Zaak 1.21.0). */
  lijstInhoud = false;
  /** How long before a request is answered (ms), by its path and query. */
  vertraging: (pad: string) => number = () => 0;
  /** An answer of this status instead of the real one, by path and query (none: the real one). */
  fout: (pad: string) => number | undefined = () => undefined;
  /** Requests (path and query) held this long (ms) before they are answered, the first `keer` times each. */
  hangt?: { match: (pad: string) => boolean; ms: number; keer: number };
  private readonly gehangen = new Map<string, number>();
  /** Every request as `METHOD path?query` (the query decoded, URLs the stand-in's). */
  readonly verzoeken: string[] = [];
  /** Requests under way now, and the most there were at once. */
  tegelijk = 0;
  maxTegelijk = 0;
  url = '';
  private readonly server: Server;

  constructor(private readonly achter: string) {
    this.server = createServer((req, res) => {
      void this.handle(req, res).catch(() => res.destroy());
    });
  }

  async start(): Promise<this> {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((r) => this.server.close(() => r()));
  }

  /** The requests whose path (without query) ends with `pad`, or that match it. */
  aantal(pad: string | RegExp): number {
    return this.verzoeken.filter((v) => (typeof pad === 'string' ? v.split('?')[0]!.endsWith(pad) : pad.test(v))).length;
  }

  /** The stand-in's form of a URL of the platform behind it. */
  hier(url: string): string {
    return url.replaceAll(this.achter, this.url);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const pad = decodeURIComponent(String(req.url));
    this.verzoeken.push(`${req.method} ${pad}`);
    this.tegelijk++;
    this.maxTegelijk = Math.max(this.maxTegelijk, this.tegelijk);
    let open = true;
    const klaar = () => {
      if (open) this.tegelijk--;
      open = false;
    };
    res.on('close', klaar);
    try {
      const ms = this.vertraging(pad);
      if (ms) await new Promise((r) => setTimeout(r, ms));
      if (this.hangt?.match(pad)) {
        const n = this.gehangen.get(pad) ?? 0;
        if (n < this.hangt.keer) {
          this.gehangen.set(pad, n + 1);
          await new Promise((r) => setTimeout(r, this.hangt!.ms));
        }
      }
      if (req.destroyed || res.destroyed) return;
      const status = this.fout(pad);
      if (status) return void res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ detail: `status ${status}` }));
      const trail = /\/zaken\/api\/v1\/zaken\/([0-9a-f-]{36})\/audittrail\/?$/.exec(pad.split('?')[0]!);
      if (trail && this.legeTrails.has(trail[1]!))
        return void res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ detail: 'Niet gevonden.' }));
      // through to the platform behind, the stand-in's URLs in the query made its own (a path with or without a slash)
      const [path, query] = String(req.url).split('?');
      const target = `${this.achter}${path!.replace(/(.)\/+$/, '$1')}${query ? `?${query.replaceAll(encodeURIComponent(this.url), encodeURIComponent(this.achter))}` : ''}`;
      const headers: Record<string, string> = {};
      for (const h of ['authorization', 'accept-crs', 'content-crs', 'accept', 'api-version'])
        if (typeof req.headers[h] === 'string') headers[h] = req.headers[h];
      const answer = await fetch(target, { method: req.method, headers });
      const type = answer.headers.get('content-type') ?? '';
      if (!type.includes('json')) {
        res.writeHead(answer.status, { 'content-type': type || 'application/octet-stream' });
        if (answer.body) Readable.fromWeb(answer.body as unknown as WebReadableStream<Uint8Array>).pipe(res);
        else res.end();
        return;
      }
      const body: unknown = JSON.parse((await answer.text()).replaceAll(this.achter, this.url));
      res.writeHead(answer.status, { 'content-type': type }).end(JSON.stringify(answer.ok ? this.alsOpenZaak(path!, body) : body));
    } finally {
      if (res.writableEnded) klaar();
    }
  }

  /** An answer as Open Zaak gives it (see the class). */
  private alsOpenZaak(path: string, body: unknown): unknown {
    const collection = /\/api\/v1\/([a-z-]+)(?:\/[0-9a-f-]{36})?\/?$/.exec(path)?.[1] ?? '';
    const object = (o: Record<string, unknown>) => {
      for (const field of OZ_NULL[collection] ?? []) if (o[field] === undefined || o[field] === '') o[field] = null;
      if (collection === 'statussen') for (const k of ['url', 'zaak']) if (typeof o[k] === 'string') o[k] = `${String(o[k])}/`;
      o.openZaakEigenVeld = { toelichting: 'een veld dat de standaard niet kent' };
      if (collection === 'zaken' && this.ormZaken.has(String(o.uuid))) o.vertrouwelijkheidaanduiding = '';
      return o;
    };
    if (Array.isArray(body)) return body.map((o) => (o && typeof o === 'object' && 'url' in o ? object(o as Record<string, unknown>) : o));
    if (!body || typeof body !== 'object') return body;
    const lijst = body as { results?: unknown[]; count?: number };
    if (Array.isArray(lijst.results)) {
      const { count: _count, ...zonder } = lijst;
      const results = lijst.results.map((o) => object(o as Record<string, unknown>));
      const versie = /\?versie=\d+$/.exec(String(results[0]?.inhoud ?? ''))?.[0];
      if (this.lijstInhoud && collection === 'enkelvoudiginformatieobjecten' && versie)
        for (const o of results) if (typeof o.inhoud === 'string') o.inhoud = o.inhoud.replace(/\?versie=\d+$/, versie);
      return { ...zonder, results };
    }
    return 'url' in body ? object(body as Record<string, unknown>) : body;
  }
}

/**
 * The fields Open Zaak 1.21.0 sends as `null` when they are empty (its models' `null=True` fields and its
 * serializers' `allow_null`), per collection, whether the standard marks them nullable or not.
 */
export const OZ_NULL: Record<string, string[]> = {
  zaken: [
    'hoofdzaak',
    'einddatum',
    'einddatumGepland',
    'uiterlijkeEinddatumAfdoening',
    'publicatiedatum',
    'laatsteBetaaldatum',
    'resultaat',
    'status',
  ],
  statussen: ['gezetdoor'],
  rollen: ['beginGeldigheid', 'eindeGeldigheid', 'authenticatieContext'],
  zaakobjecten: ['zaakobjecttype'],
  zaakinformatieobjecten: ['vernietigingsdatum', 'status'],
  enkelvoudiginformatieobjecten: ['ontvangstdatum', 'verzenddatum', 'indicatieGebruiksrecht', 'bestandsomvang'],
  gebruiksrechten: ['einddatum'],
  besluiten: ['zaak', 'vervaldatum', 'publicatiedatum', 'verzenddatum', 'uiterlijkeReactiedatum'],
};
