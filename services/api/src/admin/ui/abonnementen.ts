import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { html, type Html } from '../../common/http/html';
import { UUID } from '../../common/http/urls';
import { formatTime } from './audit';
import { callAdminApi, problemMessages, sessionOf, type AdminUi } from './context';
import { field, formOf } from './forms';
import { apiPager, csrfField, redirect, sendPage, UI, type PageOf } from './layout';

const API = '/admin/api/v1/notificaties';
const BASE = `${UI}/abonnementen`;

interface Attempt {
  at: string;
  notificatie?: string;
  kanaal?: string;
  status: number | null;
  durationMs?: number;
  ok: boolean;
  error: string | null;
}

interface Abonnement {
  uuid: string;
  url: string;
  callbackUrl: string;
  kanalen: { naam: string; filters?: Record<string, string> }[];
  state: 'active' | 'failing' | 'locked';
  failingSince: string | null;
  lockedAt: string | null;
  lockAt: string | null;
  unlockedAt: string | null;
  unlockedBy: string | null;
  consecutiveFailures: number;
  failedAttempts: number;
  delivered: number;
  lastSuccessAt: string | null;
  lastFailureAt: string | null;
  nextAttemptAt: string | null;
  lastAttempts: Attempt[];
  undelivered?: { pending: number; failed: number };
}

interface Delivery {
  id: string;
  notificatie: { id: string; kanaal: string; resource?: string; actie?: string; resourceUrl?: string; aanmaakdatum?: string };
  state: 'pending' | 'delivered' | 'failed';
  createdAt: string;
  tries: number;
  nextAttemptAt: string | null;
  deliveredAt: string | null;
  resent: boolean;
}

interface Resend {
  id: string;
  vanaf: string | null;
  tot: string | null;
  state: 'requested' | 'done';
  requestedAt: string;
  requestedBy: string;
  doneAt: string | null;
  queued: number | null;
}

const STATE: Record<Abonnement['state'], [string, string]> = {
  active: ['actief', 'on'],
  failing: ['faalt', 'bad'],
  locked: ['vergrendeld', 'bad'],
};

const NOTICES: Record<string, string> = {
  ontgrendeld:
    'Het abonnement is ontgrendeld: nieuwe notificaties worden weer bezorgd. Wat tijdens de vergrendeling gepubliceerd is, komt er alleen met "opnieuw versturen".',
  opnieuw: 'Het opnieuw versturen is aangevraagd; de notifier pakt het binnen enkele seconden op.',
};

/**
 * Abonnementen and their deliveries: state (active, failing, locked), the last attempts and failures, unlock and
 * resend. Everything goes through the notificaties admin endpoints (admin/notificaties.ts).
 */
export function registerAbonnementScreens(scope: FastifyInstance, ui: AdminUi): void {
  const failed = (req: FastifyRequest, reply: FastifyReply, errors: string[], status: number) => {
    const session = sessionOf(req);
    return sendPage(
      reply,
      { title: 'Abonnementen', user: session.user, csrf: session.csrf, nav: 'abonnementen', errors, status },
      html`<p><a href="${BASE}">Alle abonnementen</a></p>`,
    );
  };

  scope.get<{ Querystring: { page?: string; cursor?: string } }>('/abonnementen', async (req, reply) => {
    const session = sessionOf(req);
    const answer = await callAdminApi(ui, req, 'GET', `${API}/abonnementen${pageQuery(req.query)}`);
    if (answer.status !== 200) return failed(req, reply, problemMessages(answer), answer.status === 404 ? 404 : 502);
    const list = answer.body as PageOf<Abonnement>;
    const rows = list.results.map(
      (a) => html`<tr>
  <td><a href="${BASE}/${a.uuid}"><code>${a.callbackUrl}</code></a></td>
  <td>${a.kanalen.map((k) => html`<div>${k.naam}${filtersText(k.filters)}</div>`)}</td>
  <td>${statePill(a)}${stateDetail(a)}</td>
  <td>${a.delivered}</td>
  <td>${a.failedAttempts}${a.consecutiveFailures ? html`<div class="muted">${a.consecutiveFailures} op rij</div>` : ''}</td>
  <td>${lastAttempt(a.lastAttempts[0])}</td>
</tr>`,
    );
    return sendPage(
      reply,
      { title: 'Abonnementen', user: session.user, csrf: session.csrf, nav: 'abonnementen' },
      html`<p>Elk abonnement krijgt de notificaties van zijn kanalen (met filters) op zijn callback. Een abonnement waarvan alle bezorgingen een week lang mislukken, wordt vergrendeld en krijgt niets meer tot een beheerder het ontgrendelt.</p>
<table>
<thead><tr><th>Callback</th><th>Kanalen</th><th>Status</th><th>Bezorgd</th><th>Mislukt</th><th>Laatste poging</th></tr></thead>
<tbody>${rows.length ? rows : html`<tr><td colspan="6" class="muted">Nog geen abonnementen.</td></tr>`}</tbody>
</table>
${apiPager(BASE, list, req.query.page)}`,
    );
  });

  scope.get<{ Params: { uuid: string }; Querystring: { gedaan?: string; state?: string; page?: string; cursor?: string } }>(
    '/abonnementen/:uuid',
    async (req, reply) => {
      const session = sessionOf(req);
      const uuid = req.params.uuid;
      if (!UUID.test(uuid)) return failed(req, reply, ['Dit abonnement bestaat niet.'], 404);
      const answer = await callAdminApi(ui, req, 'GET', `${API}/abonnementen/${uuid}`);
      if (answer.status !== 200) return failed(req, reply, problemMessages(answer), answer.status === 404 ? 404 : 502);
      const a = answer.body as Abonnement;
      const state = ['pending', 'delivered', 'failed'].includes(req.query.state ?? '') ? req.query.state : undefined;
      const [deliveries, resends] = await Promise.all([
        callAdminApi(ui, req, 'GET', `${API}/abonnementen/${uuid}/deliveries${pageQuery({ ...req.query, state })}`),
        callAdminApi(ui, req, 'GET', `${API}/abonnementen/${uuid}/resends`),
      ]);
      const dl = deliveries.status === 200 ? (deliveries.body as PageOf<Delivery>) : undefined;
      const rs = resends.status === 200 ? (resends.body as Resend[]) : [];
      return sendPage(
        reply,
        { title: 'Abonnement', user: session.user, csrf: session.csrf, nav: 'abonnementen', notice: NOTICES[req.query.gedaan ?? ''] },
        html`<table class="facts"><tbody>
<tr><th>Callback</th><td><code>${a.callbackUrl}</code></td></tr>
<tr><th>Kanalen</th><td>${a.kanalen.map((k) => html`<div>${k.naam}${filtersText(k.filters)}</div>`)}</td></tr>
<tr><th>Status</th><td id="status">${statePill(a)}${stateDetail(a)}</td></tr>
<tr><th>Bezorgd</th><td>${a.delivered}${a.lastSuccessAt ? html` <span class="muted">(laatst ${formatTime(a.lastSuccessAt)})</span>` : ''}</td></tr>
<tr><th>Mislukte pogingen</th><td>${a.failedAttempts} in totaal, ${a.consecutiveFailures} op rij${a.lastFailureAt ? html` <span class="muted">(laatst ${formatTime(a.lastFailureAt)})</span>` : ''}</td></tr>
${a.undelivered ? html`<tr><th>Niet bezorgd</th><td>${a.undelivered.pending} wachtend, ${a.undelivered.failed} opgegeven</td></tr>` : ''}
${a.unlockedAt ? html`<tr><th>Laatst ontgrendeld</th><td>${formatTime(a.unlockedAt)} door ${a.unlockedBy ?? ''}</td></tr>` : ''}
<tr><th>Resource</th><td><code>${a.url}</code></td></tr>
</tbody></table>

<div class="actions">
${
  a.state === 'locked'
    ? html`<form method="post" action="${BASE}/${uuid}/ontgrendelen" class="inline">${csrfField(session.csrf)}<button type="submit">Ontgrendelen</button></form>`
    : html`<span class="muted">Niet vergrendeld: ontgrendelen is niet nodig.</span>`
}
</div>

<h2>Opnieuw versturen</h2>
<form method="post" action="${BASE}/${uuid}/opnieuw" id="opnieuw">${csrfField(session.csrf)}
  <p class="muted">Verstuurt de bewaarde notificaties die bij de kanalen en filters van dit abonnement passen nog eens, met hun oorspronkelijke id (een ontvanger die er een al heeft, laat hem vallen). Laat beide velden leeg voor alles wat bewaard is. Tijden in UTC.</p>
  <div class="grid2">
    <div><label for="vanaf">Gepubliceerd vanaf</label><input id="vanaf" name="vanaf" type="datetime-local" step="1"></div>
    <div><label for="tot">tot</label><input id="tot" name="tot" type="datetime-local" step="1"></div>
  </div>
  <div class="actions"><button type="submit"${a.state === 'locked' ? html` disabled title="Eerst ontgrendelen"` : ''}>Opnieuw versturen</button></div>
</form>
${
  rs.length
    ? html`<table><thead><tr><th>Aangevraagd</th><th>Door</th><th>Periode</th><th>Status</th><th>In de wachtrij</th></tr></thead><tbody>${rs.map(
        (r) =>
          html`<tr><td>${formatTime(r.requestedAt)}</td><td>${r.requestedBy}</td><td>${r.vanaf || r.tot ? html`${formatTime(r.vanaf) || '…'} – ${formatTime(r.tot) || '…'}` : 'alles'}</td><td>${r.state === 'done' ? html`<span class="pill on">klaar</span> ${formatTime(r.doneAt)}` : html`<span class="pill">aangevraagd</span>`}</td><td>${r.queued ?? ''}</td></tr>`,
      )}</tbody></table>`
    : ''
}

<h2>Laatste pogingen</h2>
${attemptsTable(a.lastAttempts)}

<h2>Bezorgingen</h2>
<nav class="actions" aria-label="Filter">${[undefined, 'pending', 'delivered', 'failed'].map((s) => {
          const label = s === undefined ? 'alle' : s === 'pending' ? 'wachtend' : s === 'delivered' ? 'bezorgd' : 'opgegeven';
          return s === state ? html`<strong>${label}</strong>` : html`<a href="${BASE}/${uuid}${s ? `?state=${s}` : ''}">${label}</a>`;
        })}</nav>
${
  dl
    ? html`<table><thead><tr><th>Notificatie</th><th>Kanaal</th><th>Aangemaakt</th><th>Status</th><th>Pogingen</th></tr></thead><tbody>${
        dl.results.length
          ? dl.results.map(
              (
                d,
              ) => html`<tr><td><code>${d.notificatie.id}</code><div class="muted">${d.notificatie.resource ?? ''} ${d.notificatie.actie ?? ''}</div></td><td>${d.notificatie.kanaal}</td><td>${formatTime(d.createdAt)}</td>
<td>${deliveryState(d)}${d.resent ? html` <span class="pill">opnieuw</span>` : ''}</td><td>${d.tries}</td></tr>`,
            )
          : html`<tr><td colspan="5" class="muted">Geen bezorgingen.</td></tr>`
      }</tbody></table>${apiPager(`${BASE}/${uuid}`, dl, req.query.page, state ? { state } : {})}`
    : html`<p class="muted">${problemMessages(deliveries).join(' ')}</p>`
}
<p><a href="${BASE}">Alle abonnementen</a></p>`,
      );
    },
  );

  scope.post<{ Params: { uuid: string } }>('/abonnementen/:uuid/ontgrendelen', async (req, reply) => {
    const uuid = req.params.uuid;
    if (!UUID.test(uuid)) return failed(req, reply, ['Dit abonnement bestaat niet.'], 404);
    const answer = await callAdminApi(ui, req, 'POST', `${API}/abonnementen/${uuid}/unlock`);
    if (answer.status !== 200) return failed(req, reply, problemMessages(answer), answer.status);
    req.log.info({ abonnement: uuid, by: sessionOf(req).user }, 'abonnement unlocked on the admin screen');
    return redirect(reply, `${BASE}/${uuid}?gedaan=ontgrendeld`);
  });

  scope.post<{ Params: { uuid: string } }>('/abonnementen/:uuid/opnieuw', async (req, reply) => {
    const uuid = req.params.uuid;
    if (!UUID.test(uuid)) return failed(req, reply, ['Dit abonnement bestaat niet.'], 404);
    const form = formOf(req.body);
    const body: Record<string, string> = {};
    for (const name of ['vanaf', 'tot'] as const) {
      const v = localToIso(field(form, name));
      if (v) body[name] = v;
    }
    const answer = await callAdminApi(ui, req, 'POST', `${API}/abonnementen/${uuid}/resend`, body);
    if (answer.status !== 202 && answer.status !== 200) return failed(req, reply, problemMessages(answer), answer.status);
    req.log.info({ abonnement: uuid, by: sessionOf(req).user }, 'resend requested on the admin screen');
    return redirect(reply, `${BASE}/${uuid}?gedaan=opnieuw`);
  });
}

/** A `datetime-local` value is taken as UTC; anything else is passed on for the endpoint to judge. */
export function localToIso(value: string): string | undefined {
  if (!value) return undefined;
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/.test(value)) return `${value.length === 16 ? `${value}:00` : value}Z`;
  return value;
}

function pageQuery(q: { page?: string; cursor?: string; state?: string }): string {
  const p = new URLSearchParams();
  if (q.state) p.set('state', q.state);
  if (q.page) p.set('page', q.page);
  if (q.cursor) p.set('cursor', q.cursor);
  const s = p.toString();
  return s ? `?${s}` : '';
}

function statePill(a: Abonnement): Html {
  const [label, cls] = STATE[a.state] ?? [a.state, ''];
  return html`<span class="pill ${cls}" data-state="${a.state}">${label}</span>`;
}

function stateDetail(a: Abonnement): Html {
  if (a.state === 'locked') return html`<div class="muted">sinds ${formatTime(a.lockedAt)}</div>`;
  if (a.state === 'failing')
    return html`<div class="muted">faalt sinds ${formatTime(a.failingSince)}${a.lockAt ? html`; vergrendelt ${formatTime(a.lockAt)}` : ''}${a.nextAttemptAt ? html`; volgende poging ${formatTime(a.nextAttemptAt)}` : ''}</div>`;
  return html``;
}

function filtersText(filters: Record<string, string> | undefined): Html {
  const entries = Object.entries(filters ?? {});
  return entries.length ? html` <span class="muted">(${entries.map(([k, v], i) => html`${i ? ', ' : ''}${k} = ${v}`)})</span>` : html``;
}

function lastAttempt(at: Attempt | undefined): Html {
  if (!at) return html`<span class="muted">nog geen</span>`;
  return html`${formatTime(at.at)}<div>${at.ok ? html`<span class="pill on">${at.status ?? 'ok'}</span>` : html`<span class="pill bad">${at.status ?? 'geen antwoord'}</span> <span class="muted">${at.error ?? ''}</span>`}</div>`;
}

function attemptsTable(attempts: Attempt[]): Html {
  if (!attempts.length) return html`<p class="muted">Nog geen pogingen.</p>`;
  return html`<table><thead><tr><th>Tijd</th><th>Notificatie</th><th>Kanaal</th><th>HTTP-status</th><th>Duur</th><th>Fout</th></tr></thead><tbody>${attempts.map(
    (t) =>
      html`<tr><td>${formatTime(t.at)}</td><td><code>${t.notificatie ?? ''}</code></td><td>${t.kanaal ?? ''}</td><td>${t.ok ? html`<span class="pill on">${t.status ?? ''}</span>` : html`<span class="pill bad">${t.status ?? 'geen antwoord'}</span>`}</td><td>${t.durationMs !== undefined ? `${t.durationMs} ms` : ''}</td><td>${t.error ?? ''}</td></tr>`,
  )}</tbody></table>`;
}

function deliveryState(d: Delivery): Html {
  if (d.state === 'delivered') return html`<span class="pill on">bezorgd</span> <span class="muted">${formatTime(d.deliveredAt)}</span>`;
  if (d.state === 'failed') return html`<span class="pill bad">opgegeven</span>`;
  return html`<span class="pill">wachtend</span>${d.nextAttemptAt ? html` <span class="muted">volgende poging ${formatTime(d.nextAttemptAt)}</span>` : ''}`;
}
