import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AUTORISATIES_CACHE, CREDENTIALS_CACHE } from '../../common/auth/auth';
import { Credentials, reservedClientIds } from '../../common/auth/credentials';
import { ZgwError } from '../../common/http/errors';
import { parsePage } from '../../common/http/pagination';
import { RATE_LIMITS_COLLECTION, parseRateLimit, type RateLimitOverride } from '../../common/auth/rate-limit';
import type { Stored } from '../../common/storage/store';
import { UUID } from '../../common/http/urls';
import { VERTROUWELIJKHEIDAANDUIDINGEN } from '../../common/auth/vertrouwelijkheid';
import { COMPONENT_WEERGAVE, COMPONENTEN, type ApplicatieDoc, type AutorisatieDoc } from '../../components/autorisaties/schemas';
import { sessionCaller, sessionOf, type AdminUi } from './context';
import { checked, field, fields, formOf, lines, type Form } from './forms';
import { html, type Html } from '../../common/http/html';
import { csrfField, pager, redirect, sendPage, UI } from './layout';
import { scopesByComponent } from './scopes';

const PAGE = 25;
const BASE = `${UI}/applicaties`;

/** The type field of an autorisatie per component (the others have none). */
const TYPE_FIELD: Partial<Record<string, 'zaaktype' | 'informatieobjecttype' | 'besluittype'>> = {
  zrc: 'zaaktype',
  drc: 'informatieobjecttype',
  brc: 'besluittype',
};

/** One autorisatie as the editor shows it. */
interface Row {
  component: string;
  scopes: string[];
  type: string;
  max: string;
}

/** The applicatie as the form holds it (also when it did not validate). */
interface Draft {
  label: string;
  clientIds: string[];
  heeftAlleAutorisaties: boolean;
  alleenIsGereedVoorPublicatie: boolean;
  rows: Row[];
  /** Its own rate limit (`<requests>/<window>`); empty: RATE_LIMIT. */
  rateLimit: string;
}

const NOTICES: Record<string, string> = {
  opgeslagen: 'De applicatie is opgeslagen.',
  verwijderd: 'De applicatie is verwijderd.',
};

/**
 * Applicaties: their client ids, secrets (shown once, when made), autorisaties and `alleenIsGereedVoorPublicatie`.
 * Writes go through the Autorisaties API's own resource, so they follow its rules (a client id in one applicatie
 * only, heeftAlleAutorisaties or autorisaties, type and maximum vertrouwelijkheid where the scopes need them) and
 * publish their notifications; the rights apply from the next request, on every instance.
 */
export function registerApplicatieScreens(scope: FastifyInstance, ui: AdminUi): void {
  const { deps } = ui;
  const creds = new Credentials(deps.db, deps.pii, deps.tenants.defaultTenant, reservedClientIds(deps.config));
  const resource = () => {
    const ac = deps.components.autorisaties;
    if (!ac) throw new ZgwError(503, 'unavailable', 'De Autorisaties API is niet geladen.');
    return ac.applicaties;
  };
  const load = async (uuid: string) => {
    const doc = UUID.test(uuid) ? await resource().store.get(uuid) : null;
    if (!doc) throw ZgwError.notFound('Deze applicatie bestaat niet (meer).');
    return doc;
  };
  const scopeChoices = () => scopesByComponent(ui.apis);
  const limits = deps.db.collection<RateLimitOverride>(RATE_LIMITS_COLLECTION);
  /** An applicatie's own rate limit stored, or removed when the field is empty. */
  const saveRateLimit = async (uuid: string, rule: string, by: string) => {
    if (!rule) await limits.deleteOne({ _id: uuid });
    else await limits.updateOne({ _id: uuid }, { $set: { rule, updatedAt: new Date(), updatedBy: by } }, { upsert: true });
  };

  scope.get<{ Querystring: { zoek?: string; page?: string; cursor?: string; gedaan?: string } }>('/applicaties', async (req, reply) => {
    const session = sessionOf(req);
    const zoek = (req.query.zoek ?? '').trim().slice(0, 100);
    const page = parsePage(req.query.page);
    const filter = zoek ? { clientIds: { $in: [zoek] } } : {};
    const { count, items, ...cont } = await resource().store.page(filter, { page, size: PAGE, cursor: req.query.cursor });
    const withSecret = await creds.owned(
      items.flatMap((a) => a.clientIds),
      session.tenant,
    );
    const rows = items.map(
      (a) => html`<tr>
  <td><a href="${BASE}/${a._id}">${a.label}</a></td>
  <td>${a.clientIds.map((id) => html`<div><code>${id}</code> ${withSecret.has(id) ? '' : html`<span class="pill bad" title="Geen secret: deze client kan niet inloggen">geen secret</span>`}</div>`)}</td>
  <td>${a.heeftAlleAutorisaties ? html`<span class="pill on">alle autorisaties</span>` : html`${a.autorisaties.length} autorisatie(s)`}</td>
  <td>${a.alleenIsGereedVoorPublicatie ? html`<span class="pill on">ja</span>` : 'nee'}</td>
</tr>`,
    );
    return sendPage(
      reply,
      { title: 'Applicaties', user: session.user, csrf: session.csrf, nav: 'applicaties', notice: NOTICES[req.query.gedaan ?? ''] },
      html`<div class="actions">
  <a class="button" href="${BASE}/nieuw">Nieuwe applicatie</a>
  <form method="get" action="${BASE}" class="inline" role="search"><input type="search" name="zoek" value="${zoek}" placeholder="client id" aria-label="Zoek op client id"> <button type="submit" class="secondary">Zoeken</button></form>
</div>
<table>
<thead><tr><th>Label</th><th>Client ids</th><th>Rechten</th><th>Alleen gereed voor publicatie</th></tr></thead>
<tbody>${rows.length ? rows : html`<tr><td colspan="4" class="muted">${zoek ? 'Geen applicatie met deze client id.' : 'Nog geen applicaties.'}</td></tr>`}</tbody>
</table>
${pager(BASE, { zoek }, page, count, PAGE, cont)}`,
    );
  });

  /** `stored`: the client ids the applicatie has now (its secrets section; the draft may differ until it is saved). */
  const editor = (
    req: FastifyRequest,
    reply: FastifyReply,
    draft: Draft,
    opts: { uuid?: string; stored?: string[]; errors?: string[]; notice?: string; status?: number; secrets?: Set<string> },
  ) => {
    const session = sessionOf(req);
    const action = opts.uuid ? `${BASE}/${opts.uuid}` : `${BASE}/nieuw`;
    const choices = scopeChoices();
    const body = html`<form method="post" action="${action}" id="applicatie">${csrfField(session.csrf)}
<fieldset><legend>Applicatie</legend>
  <label for="label">Label</label><input id="label" name="label" type="text" maxlength="100" value="${draft.label}" required>
  <label for="clientIds">Client ids, één per regel</label><textarea id="clientIds" name="clientIds" spellcheck="false" rows="3">${draft.clientIds.join('\n')}</textarea>
  ${opts.uuid ? '' : html`<p class="muted">Voor elke client id zonder secret wordt er een gemaakt en één keer getoond.</p>`}
  <label class="check"><input type="checkbox" name="heeftAlleAutorisaties" value="1"${draft.heeftAlleAutorisaties ? html` checked` : ''}> Heeft alle autorisaties</label>
  <label class="check"><input type="checkbox" id="alleenIsGereedVoorPublicatie" name="alleenIsGereedVoorPublicatie" value="1"${draft.alleenIsGereedVoorPublicatie ? html` checked` : ''}> Alleen documenten die gereed zijn voor publicatie (<code>alleenIsGereedVoorPublicatie</code>)</label>
  <label for="rateLimit">Rate limit: verzoeken per venster, bijv. <code>600/1m</code> (leeg: ${deps.config.RATE_LIMIT ? html`<code>${deps.config.RATE_LIMIT}</code> voor alle clients` : 'geen limiet'})</label><input id="rateLimit" name="rateLimit" type="text" maxlength="30" spellcheck="false" value="${draft.rateLimit}">
</fieldset>
<fieldset><legend>Autorisaties</legend>
  <p class="muted">Niet nodig bij "heeft alle autorisaties". Scopes van zaken, documenten en besluiten gelden per zaaktype, informatieobjecttype of besluittype (URL), zaken en documenten tot een maximale vertrouwelijkheidaanduiding.</p>
  <input type="hidden" name="rows" value="${draft.rows.length}">
  ${draft.rows.map((row, i) => rowEditor(row, i, choices))}
  <button type="submit" name="actie" value="rij" class="secondary" formnovalidate>Autorisatie toevoegen</button>
</fieldset>
<div class="actions"><button type="submit" name="actie" value="opslaan">${opts.uuid ? 'Opslaan' : 'Aanmaken'}</button><a href="${BASE}">Annuleren</a></div>
</form>
${opts.uuid ? secretsSection(opts.uuid, opts.stored ?? draft.clientIds, opts.secrets ?? new Set(), session.csrf) : ''}
${
  opts.uuid
    ? html`<h2>Verwijderen</h2><form method="post" action="${BASE}/${opts.uuid}/verwijderen" data-confirm="Deze applicatie verwijderen?">${csrfField(session.csrf)}
  <label class="check"><input type="checkbox" name="secrets" value="1" checked> Ook de secrets van haar client ids verwijderen</label>
  <div class="actions"><button type="submit" class="danger">Applicatie verwijderen</button></div></form>`
    : ''
}`;
    return sendPage(
      reply,
      {
        title: opts.uuid ? `Applicatie ${draft.label}` : 'Nieuwe applicatie',
        user: session.user,
        csrf: session.csrf,
        nav: 'applicaties',
        errors: opts.errors,
        notice: opts.notice,
        status: opts.status,
      },
      body,
    );
  };

  scope.get('/applicaties/nieuw', async (req, reply) =>
    editor(
      req,
      reply,
      { label: '', clientIds: [], heeftAlleAutorisaties: false, alleenIsGereedVoorPublicatie: false, rows: [blankRow()], rateLimit: '' },
      {},
    ),
  );

  scope.post('/applicaties/nieuw', async (req, reply) => {
    const form = formOf(req.body);
    const draft = readDraft(form);
    if (field(form, 'actie') === 'rij') return editor(req, reply, { ...draft, rows: [...draft.rows, blankRow()] }, {});
    const caller = sessionCaller(sessionOf(req));
    const applicaties = resource();
    const uuid = randomUUID();
    const ctx = applicaties.ctx(caller, uuid);
    let doc: ApplicatieDoc;
    try {
      doc = await applicaties.def.prepare!(applicaties.parseInput(toInput(draft), ctx), ctx);
      checkRateLimit(draft);
      await checkOwnClients(creds, doc.clientIds, caller.tenant);
    } catch (err) {
      return invalid(err, draft, (errors) => editor(req, reply, withBlank(draft), { errors, status: 400 }));
    }
    // before the applicatie: its write clears the rights every instance holds, the limit with them
    await saveRateLimit(uuid, draft.rateLimit, caller.clientId);
    await applicaties.insert(doc, ctx);
    deps.caches.clear(AUTORISATIES_CACHE);
    const secrets = await newSecrets(creds, doc.clientIds, caller.tenant);
    req.log.info({ applicatie: uuid, by: caller.clientId, secrets: secrets.length }, 'applicatie created on the admin screen');
    return secretsPage(req, reply, uuid, doc.label, secrets, 'De applicatie is aangemaakt.');
  });

  scope.get<{ Params: { uuid: string }; Querystring: { gedaan?: string } }>('/applicaties/:uuid', async (req, reply) => {
    const doc = await load(req.params.uuid);
    const override = await limits.findOne({ _id: doc._id });
    return editor(req, reply, withBlank(draftOf(doc, override?.rule ?? '')), {
      uuid: doc._id,
      notice: NOTICES[req.query.gedaan ?? ''],
      secrets: await creds.owned(doc.clientIds, sessionOf(req).tenant),
    });
  });

  scope.post<{ Params: { uuid: string } }>('/applicaties/:uuid', async (req, reply) => {
    const current = await load(req.params.uuid);
    const form = formOf(req.body);
    const draft = readDraft(form);
    const secrets = await creds.owned(current.clientIds, sessionOf(req).tenant);
    if (field(form, 'actie') === 'rij')
      return editor(req, reply, { ...draft, rows: [...draft.rows, blankRow()] }, { uuid: current._id, stored: current.clientIds, secrets });
    const caller = sessionCaller(sessionOf(req));
    const applicaties = resource();
    const ctx = applicaties.ctx(caller, current._id);
    let doc: ApplicatieDoc;
    try {
      doc = await applicaties.def.prepare!(applicaties.parseInput(toInput(draft), ctx), ctx, current);
      checkRateLimit(draft);
      await checkOwnClients(creds, doc.clientIds, caller.tenant);
    } catch (err) {
      return invalid(err, draft, (errors) =>
        editor(req, reply, withBlank(draft), { uuid: current._id, stored: current.clientIds, errors, status: 400, secrets }),
      );
    }
    await saveRateLimit(current._id, draft.rateLimit, caller.clientId);
    const stored = await applicaties.update(current, doc, ctx, 'update');
    deps.caches.clear(AUTORISATIES_CACHE);
    if (!stored) throw ZgwError.notFound('Deze applicatie is intussen verwijderd.');
    // Client ids taken out of the applicatie lose their secret; new ones get one (shown once).
    const dropped = current.clientIds.filter((id) => !doc.clientIds.includes(id));
    for (const id of dropped) await creds.remove(id, caller.tenant);
    const made = await newSecrets(creds, doc.clientIds, caller.tenant);
    if (dropped.length || made.length) deps.caches.clear(CREDENTIALS_CACHE);
    req.log.info(
      { applicatie: current._id, by: caller.clientId, secrets: made.length, removed: dropped.length },
      'applicatie changed on the admin screen',
    );
    if (made.length) return secretsPage(req, reply, current._id, doc.label, made, 'De applicatie is opgeslagen.');
    return redirect(reply, `${BASE}/${current._id}?gedaan=opgeslagen`);
  });

  scope.post<{ Params: { uuid: string } }>('/applicaties/:uuid/secret', async (req, reply) => {
    const current = await load(req.params.uuid);
    const clientId = field(formOf(req.body), 'clientId');
    if (!current.clientIds.includes(clientId)) throw new ZgwError(400, 'invalid', 'Deze client id hoort niet bij deze applicatie.');
    const secret = await creds.set(clientId, sessionOf(req).tenant);
    deps.caches.clear(CREDENTIALS_CACHE);
    req.log.info({ applicatie: current._id, clientId, by: sessionOf(req).user }, 'client secret replaced on the admin screen');
    return secretsPage(
      req,
      reply,
      current._id,
      current.label,
      [{ clientId, secret }],
      `Het secret van ${clientId} is vervangen; het oude werkt niet meer.`,
    );
  });

  scope.post<{ Params: { uuid: string } }>('/applicaties/:uuid/verwijderen', async (req, reply) => {
    const current = await load(req.params.uuid);
    const caller = sessionCaller(sessionOf(req));
    const applicaties = resource();
    await applicaties.destroy(current, applicaties.ctx(caller, current._id));
    await limits.deleteOne({ _id: current._id });
    deps.caches.clear(AUTORISATIES_CACHE);
    if (checked(formOf(req.body), 'secrets')) {
      for (const id of current.clientIds) await creds.remove(id, caller.tenant);
      deps.caches.clear(CREDENTIALS_CACHE);
    }
    req.log.info({ applicatie: current._id, by: caller.clientId }, 'applicatie deleted on the admin screen');
    return redirect(reply, `${BASE}?gedaan=verwijderd`);
  });
}

/** Makes a secret (in `tenant`) for every client id that has none; returns them (to be shown once). */
async function newSecrets(creds: Credentials, clientIds: string[], tenant: string): Promise<{ clientId: string; secret: string }[]> {
  const have = await creds.owned(clientIds, tenant);
  const made: { clientId: string; secret: string }[] = [];
  for (const clientId of clientIds.filter((id) => !have.has(id))) made.push({ clientId, secret: await creds.set(clientId, tenant) });
  return made;
}

/** A client id another tenant holds cannot be this tenant's (client ids are unique across the installation). */
async function checkOwnClients(creds: Credentials, clientIds: string[], tenant: string): Promise<void> {
  const foreign = new Set(await creds.heldElsewhere(clientIds, tenant));
  const id = clientIds.find((c) => foreign.has(c));
  if (id !== undefined) throw ZgwError.field('clientIds', 'unique', `Client id ${id} is al in gebruik bij een andere organisatie: kies een andere.`);
}

function secretsPage(
  req: FastifyRequest,
  reply: FastifyReply,
  uuid: string,
  label: string,
  secrets: { clientId: string; secret: string }[],
  notice: string,
) {
  const session = sessionOf(req);
  const body = secrets.length
    ? html`<div class="secret">
<p><strong>Kopieer de secrets nu.</strong> Ze worden alleen deze keer getoond en zijn nergens meer op te vragen; verloren is vervangen.</p>
<table><thead><tr><th>Client id</th><th>Secret</th><th></th></tr></thead><tbody>
${secrets.map((s, i) => html`<tr><td><code>${s.clientId}</code></td><td><code id="secret-${i}" class="mono" data-secret>${s.secret}</code></td><td><button type="button" class="secondary" data-copy="secret-${i}" hidden>Kopiëren</button></td></tr>`)}
</tbody></table></div>`
    : html`<p>Alle client ids hadden al een secret.</p>`;
  return sendPage(
    reply,
    { title: `Applicatie ${label}`, user: session.user, csrf: session.csrf, nav: 'applicaties', notice },
    html`${body}<p><a href="${BASE}/${uuid}">Naar de applicatie</a> · <a href="${BASE}">Alle applicaties</a></p>`,
  );
}

function secretsSection(uuid: string, clientIds: string[], withSecret: Set<string>, csrf: string): Html {
  return html`<h2>Secrets</h2>
<p class="muted">Een secret wordt alleen getoond als het gemaakt wordt. Een nieuw secret vervangt het oude meteen.</p>
<table><thead><tr><th>Client id</th><th>Secret</th><th></th></tr></thead><tbody>
${clientIds.map(
  (
    id,
  ) => html`<tr><td><code>${id}</code></td><td>${withSecret.has(id) ? html`<span class="pill on">ingesteld</span>` : html`<span class="pill bad">geen</span>`}</td>
<td><form method="post" action="${BASE}/${uuid}/secret" class="inline"${withSecret.has(id) ? html` data-confirm="Het secret van deze client id vervangen? Het oude werkt dan niet meer."` : ''}>${csrfField(csrf)}<input type="hidden" name="clientId" value="${id}"><button type="submit" class="secondary">${withSecret.has(id) ? 'Nieuw secret' : 'Secret maken'}</button></form></td></tr>`,
)}
</tbody></table>`;
}

function rowEditor(row: Row, i: number, choices: Map<string, string[]>): Html {
  const p = `a${i}`;
  const known = new Set(choices.get(row.component) ?? []);
  const extra = row.scopes.filter((s) => !known.has(s));
  return html`<div class="row" data-autorisatie>
  <div class="grid">
    <div><label for="${p}-component">Component</label>
      <select id="${p}-component" name="${p}.component" data-component>
        <option value="">(kies)</option>
        ${COMPONENTEN.map((c) => html`<option value="${c}"${row.component === c ? html` selected` : ''}>${COMPONENT_WEERGAVE[c]} (${c})</option>`)}
      </select></div>
    <div><label for="${p}-type">Type (URL van zaaktype, informatieobjecttype of besluittype)</label><input id="${p}-type" name="${p}.type" type="text" value="${row.type}" spellcheck="false"></div>
    <div><label for="${p}-max">Maximale vertrouwelijkheidaanduiding</label>
      <select id="${p}-max" name="${p}.max"><option value="">(geen)</option>${VERTROUWELIJKHEIDAANDUIDINGEN.map((v) => html`<option value="${v}"${row.max === v ? html` selected` : ''}>${v}</option>`)}</select></div>
  </div>
  <label>Scopes</label>
  ${COMPONENTEN.map((c) => {
    const scopes = choices.get(c) ?? [];
    if (!scopes.length) return '';
    return html`<div class="scopes" data-for="${c}"${row.component && row.component !== c ? html` hidden` : ''}>${scopes.map(
      (s) =>
        html`<label class="check"><input type="checkbox" name="${p}.scopes" value="${s}"${row.component === c && row.scopes.includes(s) ? html` checked` : ''}> <code>${s}</code></label>`,
    )}</div>`;
  })}
  <label for="${p}-extra">Andere scopes (gescheiden door spaties)</label><input id="${p}-extra" name="${p}.extra" type="text" value="${extra.join(' ')}" spellcheck="false">
  <label class="check"><input type="checkbox" name="${p}.remove" value="1"> Deze autorisatie verwijderen</label>
</div>`;
}

const blankRow = (): Row => ({ component: '', scopes: [], type: '', max: '' });
const withBlank = (d: Draft): Draft => ({ ...d, rows: [...d.rows, blankRow()] });

function draftOf(doc: Stored<ApplicatieDoc>, rateLimit: string): Draft {
  return {
    rateLimit,
    label: doc.label,
    clientIds: doc.clientIds,
    heeftAlleAutorisaties: doc.heeftAlleAutorisaties,
    alleenIsGereedVoorPublicatie: doc.alleenIsGereedVoorPublicatie === true,
    rows: doc.autorisaties.map((a: AutorisatieDoc) => ({
      component: a.component,
      scopes: a.scopes,
      type: a.zaaktype ?? a.informatieobjecttype ?? a.besluittype ?? '',
      max: a.maxVertrouwelijkheidaanduiding ?? '',
    })),
  };
}

/** The draft a submitted form describes: rows without a component, or marked for removal, are left out. */
export function readDraft(form: Form): Draft {
  const n = Math.min(Math.max(Number(field(form, 'rows')) || 0, 0), 200);
  const rows: Row[] = [];
  for (let i = 0; i < n; i++) {
    const p = `a${i}`;
    const component = field(form, `${p}.component`);
    if (!component || checked(form, `${p}.remove`)) continue;
    const scopes = [
      ...fields(form, `${p}.scopes`),
      ...field(form, `${p}.extra`)
        .split(/[\s,]+/)
        .filter(Boolean),
    ];
    rows.push({ component, scopes: [...new Set(scopes)], type: field(form, `${p}.type`), max: field(form, `${p}.max`) });
  }
  return {
    label: field(form, 'label'),
    clientIds: [...new Set(lines(field(form, 'clientIds')))],
    heeftAlleAutorisaties: checked(form, 'heeftAlleAutorisaties'),
    alleenIsGereedVoorPublicatie: checked(form, 'alleenIsGereedVoorPublicatie'),
    rows,
    rateLimit: field(form, 'rateLimit').trim(),
  };
}

/** A rate limit the form names must be one RATE_LIMIT could be (refused in the ZGW way, shown as the form's error). */
function checkRateLimit(d: Draft): void {
  try {
    parseRateLimit(d.rateLimit);
  } catch {
    throw ZgwError.field('rateLimit', 'invalid', 'gebruik <verzoeken>/<venster> met s, m of h, bijv. 40/1s of 600/1m.');
  }
}

/** The Autorisaties API's input for a draft (an autorisatie's type goes in its component's type field). */
export function toInput(d: Draft): Record<string, unknown> {
  return {
    label: d.label,
    clientIds: d.clientIds,
    heeftAlleAutorisaties: d.heeftAlleAutorisaties,
    alleenIsGereedVoorPublicatie: d.alleenIsGereedVoorPublicatie,
    autorisaties: d.rows.map((r) => {
      const typeField = TYPE_FIELD[r.component];
      return {
        component: r.component,
        scopes: r.scopes,
        ...(typeField && r.type ? { [typeField]: r.type } : {}),
        ...(r.max ? { maxVertrouwelijkheidaanduiding: r.max } : {}),
      };
    }),
  };
}

const FIELD_LABELS: Record<string, string> = {
  label: 'Label',
  clientIds: 'Client ids',
  nonFieldErrors: 'Applicatie',
  heeftAlleAutorisaties: 'Heeft alle autorisaties',
  alleenIsGereedVoorPublicatie: 'Alleen gereed voor publicatie',
  rateLimit: 'Rate limit',
};

/** A validation failure of the Autorisaties rules as lines for the page (`autorisaties.1.zaaktype` -> autorisatie 2). */
function invalid(err: unknown, _draft: Draft, show: (errors: string[]) => unknown) {
  if (!(err instanceof ZgwError) || err.status !== 400) throw err;
  const errors = (err.invalidParams ?? [{ name: 'nonFieldErrors', code: err.code, reason: err.message }]).map((p) => {
    const m = /^autorisaties\.(\d+)(?:\.(.+))?$/.exec(p.name);
    const where = m ? `Autorisatie ${Number(m[1]) + 1}${m[2] ? `, ${m[2]}` : ''}` : (FIELD_LABELS[p.name.split('.')[0]!] ?? p.name);
    return `${where}: ${p.reason}`;
  });
  return show(errors);
}
