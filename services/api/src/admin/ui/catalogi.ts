import { randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import { Busboy } from '@fastify/busboy';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Binary } from 'mongodb';
import { ZgwError } from '../../common/http/errors';
import { html } from '../../common/http/html';
import { parsePage } from '../../common/http/pagination';
import { catalogiOfAdmin } from '../catalogi';
import { sessionCaller, sessionOf, type AdminUi } from './context';
import { field, formOf } from './forms';
import { csrfField, pager, redirect, sendPage, UI } from './layout';

const BASE = `${UI}/catalogi`;
const PAGE = 25;
/** An upload waits this long for its import after the preview. */
const UPLOAD_MINUTES = 60;
/** The largest ZIP the screen takes (an upload is kept in one document until it is imported). */
const MAX_UPLOAD_BYTES = 15 * 1024 * 1024;

interface Upload {
  _id: string; // a random token, the form's
  user: string;
  zip: Binary;
  nieuweUuids: boolean;
  naam: string;
  at: Date;
}

/** The fields and the one file (`bestand`) of the upload form (multipart/form-data). */
function readUpload(req: FastifyRequest, payload: Readable): Promise<Record<string, string | Buffer>> {
  return new Promise((resolve, reject) => {
    const out: Record<string, string | Buffer> = {};
    let busboy: Busboy;
    try {
      busboy = new Busboy({ headers: req.headers as never, limits: { files: 1, fields: 5, fileSize: MAX_UPLOAD_BYTES } });
    } catch {
      return reject(new ZgwError(400, 'parse_error', 'Het formulier is ongeldig.'));
    }
    busboy.on('field', (name: string, value: string) => (out[name] = value));
    busboy.on('file', (name: string, stream: Readable & { truncated?: boolean }, filename: string) => {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        if (stream.truncated) return reject(new ZgwError(413, 'max_size', `Het bestand is groter dan ${MAX_UPLOAD_BYTES / 1024 / 1024} MB.`));
        if (name === 'bestand') {
          out.bestand = Buffer.concat(chunks);
          out.bestandsnaam = filename;
        }
      });
    });
    busboy.on('error', () => reject(new ZgwError(400, 'parse_error', 'Het formulier is ongeldig.')));
    busboy.on('finish', () => resolve(out));
    payload.on('error', reject);
    payload.pipe(busboy);
  });
}

/** What a refused import says, one line per object (an error of the platform itself is raised as such). */
function refusals(err: unknown): string[] {
  if (!(err instanceof ZgwError) || err.status >= 500) throw err;
  return err.invalidParams?.length ? err.invalidParams.map((p) => `${p.name}: ${p.reason}`) : [err.message];
}

/**
 * The catalogi of the organisation managed: each exported as a ZIP (the admin endpoint, with the session), and a ZIP (ours or Open Zaak's) imported after a
 * preview of what it makes. The upload waits in the database (an hour at most) between the preview and the import.
 */
export async function registerCatalogusScreens(scope: FastifyInstance, ui: AdminUi): Promise<void> {
  const { deps } = ui;
  const uploads = deps.db.collection<Upload>('catalogus_uploads');
  await uploads.createIndex({ at: 1 }, { expireAfterSeconds: UPLOAD_MINUTES * 60 });
  const catalogi = () => catalogiOfAdmin(deps);
  scope.addContentTypeParser('multipart/form-data', { bodyLimit: MAX_UPLOAD_BYTES + 64 * 1024 }, (req, payload, done) => {
    readUpload(req, payload).then((form) => done(null, form), done);
  });

  const list = async (req: FastifyRequest, reply: FastifyReply, opts: { errors?: string[]; status?: number; notice?: string } = {}) => {
    const session = sessionOf(req);
    const page = parsePage((req.query as { page?: string }).page);
    const { count, items, ...cont } = await catalogi().catalogussen.store.page(
      {},
      { page, size: PAGE, cursor: (req.query as { cursor?: string }).cursor },
    );
    const rows = items.map(
      (c) => html`<tr><td>${String(c.naam ?? '')}</td><td><code>${String(c.domein)}</code></td><td><code>${String(c.rsin)}</code></td>
<td><a href="/admin/api/v1/catalogussen/${c._id}/export" download>ZIP</a></td></tr>`,
    );
    return sendPage(
      reply,
      { title: 'Catalogi', user: session.user, csrf: session.csrf, nav: 'catalogi', errors: opts.errors, status: opts.status, notice: opts.notice },
      html`<table><thead><tr><th>Naam</th><th>Domein</th><th>RSIN</th><th>Exporteren</th></tr></thead>
<tbody>${rows.length ? rows : html`<tr><td colspan="4" class="muted">Nog geen catalogi.</td></tr>`}</tbody></table>
${pager(BASE, {}, page, count, PAGE, cont)}
<h2>Importeren</h2>
<p>Een ZIP van een catalogus: van dit platform, of van Open Zaak (Admin, Catalogi, "exporteren"). U ziet eerst wat er gemaakt wordt.</p>
<form method="post" action="${BASE}/voorbeeld" enctype="multipart/form-data" class="login">${csrfField(session.csrf)}
  <label for="bestand">ZIP-bestand</label><input id="bestand" name="bestand" type="file" accept=".zip,application/zip" required>
  <label class="check"><input type="checkbox" name="nieuweUuids" value="1"> Nieuwe UUID's (nodig als de catalogus al op dit platform staat)</label>
  <div class="actions"><button type="submit">Bekijken</button></div>
</form>`,
    );
  };

  scope.get<{ Querystring: { gedaan?: string } }>('/catalogi', async (req, reply) =>
    list(req, reply, { notice: req.query.gedaan ? `De catalogus is geïmporteerd: ${req.query.gedaan}` : undefined }),
  );

  scope.post('/catalogi/voorbeeld', async (req, reply) => {
    const session = sessionOf(req);
    const form = (req.body ?? {}) as Record<string, string | Buffer>;
    const zip = form.bestand;
    if (!Buffer.isBuffer(zip) || !zip.length) return list(req, reply, { status: 400, errors: ['Kies een ZIP-bestand.'] });
    const nieuweUuids = form.nieuweUuids === '1';
    let report;
    try {
      report = await catalogi().uitwisseling.import(new Uint8Array(zip), { nieuweUuids, dryRun: true }, sessionCaller(session));
    } catch (err) {
      return list(req, reply, { status: 400, errors: refusals(err) });
    }
    const token = randomBytes(24).toString('base64url');
    const naam = String(form.bestandsnaam ?? 'catalogus.zip').slice(0, 200);
    await uploads.insertOne({ _id: token, user: session.user, zip: new Binary(zip), nieuweUuids, naam, at: new Date() });
    const rows = Object.entries(report.aantallen).map(([kind, n]) => html`<tr><td>${kind}</td><td class="num">${n}</td></tr>`);
    return sendPage(
      reply,
      { title: 'Catalogus importeren', user: session.user, csrf: session.csrf, nav: 'catalogi' },
      html`<p><strong>${naam}</strong>: de catalogus <code>${report.bron}</code> wordt <code>${report.catalogus}</code>
(${report.nieuweUuids ? "met nieuwe UUID's" : "met dezelfde UUID's"}); ${report.gepubliceerd} typen worden gepubliceerd zoals ze waren.</p>
<table><thead><tr><th>Soort</th><th>Aantal</th></tr></thead><tbody>${rows}</tbody></table>
<form method="post" action="${BASE}/importeren">${csrfField(session.csrf)}<input type="hidden" name="upload" value="${token}">
<div class="actions"><button type="submit">Importeren</button> <a href="${BASE}">Annuleren</a></div></form>`,
    );
  });

  scope.post('/catalogi/importeren', async (req, reply) => {
    const session = sessionOf(req);
    const upload = await uploads.findOneAndDelete({ _id: field(formOf(req.body), 'upload'), user: session.user });
    if (!upload) return list(req, reply, { status: 400, errors: ['Deze upload is verlopen of al geïmporteerd: kies het bestand opnieuw.'] });
    const caller = sessionCaller(session);
    try {
      const report = await catalogi().uitwisseling.import(new Uint8Array(upload.zip.buffer), { nieuweUuids: upload.nieuweUuids }, caller);
      req.log.info(
        { catalogus: report.catalogus, bron: report.bron, aantallen: report.aantallen, user: session.user },
        'catalogus imported on the admin screen',
      );
      return redirect(reply, `${BASE}?gedaan=${encodeURIComponent(report.catalogus)}`);
    } catch (err) {
      return list(req, reply, { status: 400, errors: refusals(err) });
    }
  });
}
