import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { IMPORT_GELIJKTIJDIG, type ImportOpruiming, type ImportStatus, type ImportTelling } from '@zgw/shared';
import { ZgwError } from '../../common/http/errors';
import { html, type Html } from '../../common/http/html';
import { UUID } from '../../common/http/urls';
import type { ImportView } from '../importen';
import { formatTime } from './audit';
import { callAdminApi, problemMessages, sessionOf, type AdminUi } from './context';
import { checked, field, formOf, lines, type Form } from './forms';
import { csrfField, redirect, sendPage, UI } from './layout';
import { formatBytes } from './organisaties';

const BASE = `${UI}/importen`;
const API = '/admin/api/v1/importen';
/** A page of a run under way reloads itself this often (seconds). */
const REFRESH = 5;

const STATUS_CLASS: Record<ImportStatus, string> = { bezig: '', gepauzeerd: '', afgerond: 'on', mislukt: 'bad', geannuleerd: 'bad' };
const pill = (s: ImportStatus): Html => html`<span class="pill ${STATUS_CLASS[s]}" data-status="${s}">${s}</span>`;
const loopt = (s: ImportStatus) => s === 'bezig' || s === 'gepauzeerd';

const ACTIES = { pauzeren: 'Pauzeren', hervatten: 'Hervatten', annuleren: 'Annuleren' } as const;
const NOTICES: Record<string, string> = {
  gestart: 'De import is gestart. Deze pagina ververst zich tot hij klaar is.',
  pauzeren: 'De import pauzeert na de pagina die onderweg is.',
  hervatten: 'De import gaat verder.',
  annuleren: 'De import is geannuleerd; wat al overgebracht was blijft (een volgende import gaat daar verder).',
};
const UITKOMSTEN: (keyof ImportTelling)[] = ['gelezen', 'nieuw', 'bijgewerkt', 'bezet', 'overgeslagen', 'mislukt'];
/** The objects of the cut-over a run's page lists (the admin endpoint gives them all, up to IMPORT_MAX_OPRUIMING). */
const OPRUIMING_GETOOND = 500;
const OPRUIMING_UITKOMST = { verwijderd: 'verwijderd', behouden: 'behouden', 'te-verwijderen': 'te verwijderen' } as const;

/** A run's objects over every collection: read, stored (new or replaced), failed. */
function totalen(v: ImportView): { gelezen: number; opgeslagen: number; mislukt: number } {
  const t = Object.values(v.tellingen);
  const sum = (f: (x: ImportTelling) => number) => t.reduce((n, x) => n + f(x), 0);
  return { gelezen: sum((x) => x.gelezen), opgeslagen: sum((x) => x.nieuw + x.bijgewerkt), mislukt: sum((x) => x.mislukt) };
}

/** What the form asks for, as the admin endpoint takes it. */
function aanvraagVan(form: Form): Record<string, unknown> {
  const optional = (name: string) => field(form, name) || undefined;
  // (a number the endpoint checks: what is not one is refused there, per field)
  const getal = (name: string) => (field(form, name) ? Number(field(form, name)) : undefined);
  return {
    bron: field(form, 'bron'),
    clientId: field(form, 'clientId'),
    secret: field(form, 'secret'),
    dryRun: checked(form, 'dryRun'),
    zaaktypen: lines(field(form, 'zaaktypen').replaceAll(',', '\n')),
    vanaf: optional('vanaf'),
    tot: optional('tot'),
    bronorganisatie: optional('bronorganisatie'),
    gelijktijdig: getal('gelijktijdig'),
    timeout: getal('timeout'),
    verwijderen: checked(form, 'verwijderen'),
  };
}

/** The run's pace: requests at once, the timeout of one, and how the source answers (see BronTempo). */
function tempoVan(r: ImportView): Html {
  const t = r.tempo;
  const timeout = r.timeoutSeconden
    ? html`time-out ${r.timeoutSeconden} s`
    : html`time-out 5 x de p95 van de bron (10 tot 120 s)${t ? html`, nu ${Math.round(t.timeoutMs / 1000)} s` : ''}`;
  return html`<span id="gelijktijdig">${r.gelijktijdig ?? IMPORT_GELIJKTIJDIG}</span> verzoeken tegelijk; <span id="timeout">${timeout}</span>${
    t
      ? html`<br><span id="tempo">${t.verzoekenPerSeconde} verzoeken/s, p95 ${t.p95Ms ?? '-'} ms, ${t.wachtend} wachtend; ${t.verzoeken} verzoeken in totaal</span>`
      : ''
  }`;
}

/**
 * The cut-over's report: what the previous completed run of the same source brought and the source has deleted since,
 * per collection and per object (its URL at the source and ours), removed here, kept (with why) or only reported.
 */
function opruimingVan(o: ImportOpruiming | undefined, r: ImportView): Html | string {
  if (!o) return r.dryRun || loopt(r.status) ? '' : html`<h2>Opruiming</h2><p class="muted" id="opruiming">Niet nagegaan.</p>`;
  if (!o.vorigeRun)
    return html`<h2>Opruiming</h2><p class="muted" id="opruiming">Geen eerdere afgeronde import van deze bron: niets om op te ruimen.</p>`;
  const aantallen = Object.entries(o.aantallen);
  const getoond = o.objecten.slice(0, OPRUIMING_GETOOND);
  return html`<h2>Opruiming</h2>
<p id="opruiming">Wat de <a href="${BASE}/${o.vorigeRun}">vorige import</a> van deze bron bracht en de bron sindsdien verwijderde, ${
    o.verwijderen ? 'is hier verwijderd (behalve wat hier nog gebruikt wordt)' : html`<strong>is alleen gemeld</strong>, niet verwijderd`
  }.</p>
${
  aantallen.length
    ? html`<table id="opruiming-aantallen"><thead><tr><th>Collectie</th><th>Verwijderd</th><th>Behouden</th><th>Te verwijderen</th></tr></thead><tbody>${aantallen.map(
        ([k, a]) => html`<tr><td>${k}</td><td>${a.verwijderd}</td><td>${a.behouden}</td><td>${a.teVerwijderen}</td></tr>`,
      )}</tbody></table>
<table id="opruiming-objecten"><thead><tr><th>Collectie</th><th>In de bron</th><th>Hier</th><th>Uitkomst</th></tr></thead><tbody>${getoond.map(
        (x) =>
          html`<tr><td>${x.soort}</td><td><code>${x.bron}</code></td><td><code>${x.hier}</code></td><td>${OPRUIMING_UITKOMST[x.uitkomst]}${x.reden ? html`: ${x.reden}` : ''}</td></tr>`,
      )}</tbody></table>
${o.objecten.length > getoond.length ? html`<p class="muted">De eerste ${getoond.length} van ${o.objecten.length}.</p>` : ''}`
    : html`<p class="muted">De bron verwijderde niets.</p>`
}`;
}

/**
 * Registration imports (docs/moving-in.md), for platform administrators, into the organisation the screens manage:
 * the runs with their progress, a new run (a dry run first), and one run's counts per collection, its verification
 * and the objects that failed, pausing, resuming and cancelling it. Everything goes through the admin endpoints
 * (admin/importen.ts).
 */
export function registerImportScreens(scope: FastifyInstance, ui: AdminUi): void {
  const platformOnly = (req: FastifyRequest) => {
    const session = sessionOf(req);
    if (!session.platform) throw ZgwError.forbidden('Alleen beheerders van het platform importeren registraties.', 'platform-admin');
    return session;
  };
  const failed = (req: FastifyRequest, reply: FastifyReply, errors: string[], status: number) => {
    const session = sessionOf(req);
    return sendPage(
      reply,
      { title: 'Importen', user: session.user, csrf: session.csrf, nav: 'importen', errors, status },
      html`<p><a href="${BASE}">Alle importen</a></p>`,
    );
  };

  const list = async (req: FastifyRequest, reply: FastifyReply, opts: { errors?: string[]; status?: number; form?: Form } = {}) => {
    const session = platformOnly(req);
    const answer = await callAdminApi(ui, req, 'GET', API);
    if (answer.status !== 200) return failed(req, reply, problemMessages(answer), 502);
    const runs = answer.body as ImportView[];
    const f = opts.form ?? {};
    const rows = runs.map((r) => {
      const t = totalen(r);
      return html`<tr>
  <td><a href="${BASE}/${r.id}">${r.bron}</a>${r.dryRun ? html` <span class="pill">proef</span>` : ''}</td>
  <td>${pill(r.status)}</td>
  <td>${t.gelezen}</td><td>${t.opgeslagen}</td><td>${t.mislukt}</td>
  <td>${formatTime(r.aangemaakt)}</td>
</tr>`;
    });
    return sendPage(
      reply,
      { title: 'Importen', user: session.user, csrf: session.csrf, nav: 'importen', errors: opts.errors, status: opts.status },
      html`<p>Een import leest een andere ZGW-registratie (Open Zaak, OneGround, een ander platform) via haar standaard-API's en slaat haar catalogi, zaken, documenten en besluiten hier op in organisatie <code>${session.tenant}</code>, met hun UUID's, identificaties en datums. Begin met een proefimport: die zegt wat er gemaakt zou worden en wat niet kan, en schrijft niets.</p>
<table id="importen">
<thead><tr><th>Bron</th><th>Status</th><th>Gelezen</th><th>Opgeslagen</th><th>Mislukt</th><th>Gestart</th></tr></thead>
<tbody>${rows.length ? rows : html`<tr><td colspan="6" class="muted">Nog geen importen.</td></tr>`}</tbody>
</table>
<h2>Nieuwe import</h2>
<form method="post" action="${BASE}">${csrfField(session.csrf)}
<label>Basis-URL van de bron <input name="bron" type="url" required value="${field(f, 'bron')}" placeholder="https://zaken.gemeente.example"></label>
<p class="muted">De URL waaronder de bron /zaken/api/v1, /documenten/api/v1, /besluiten/api/v1 en /catalogi/api/v1 dient.</p>
<label>Client-ID bij de bron <input name="clientId" required value="${field(f, 'clientId')}"></label>
<label>Secret bij de bron <input name="secret" type="password" required autocomplete="off"></label>
<label>Alleen deze zaaktypen (identificaties, één per regel) <textarea name="zaaktypen" rows="2">${field(f, 'zaaktypen')}</textarea></label>
<label>Zaken met een startdatum vanaf <input name="vanaf" type="date" value="${field(f, 'vanaf')}"></label>
<label>tot en met <input name="tot" type="date" value="${field(f, 'tot')}"></label>
<label>Alleen zaken van bronorganisatie (RSIN) <input name="bronorganisatie" pattern="[0-9]{9}" value="${field(f, 'bronorganisatie')}"></label>
<label>Verzoeken aan de bron tegelijk <input name="gelijktijdig" type="number" min="1" max="64" value="${field(f, 'gelijktijdig') || IMPORT_GELIJKTIJDIG}"></label>
<label>Time-out van een verzoek in seconden <input name="timeout" type="number" min="1" max="3600" value="${field(f, 'timeout')}"></label>
<p class="muted">Leeg: 5 x de p95 van de bron, tussen 10 en 120 s. Een kleine bron (Open Zaak met 2 processen) verdraagt er 4 tegelijk.</p>
<label class="check"><input type="checkbox" name="verwijderen"${opts.form && !checked(f, 'verwijderen') ? '' : html` checked`}> Verwijder hier wat de bron sinds de vorige import van dezelfde bron verwijderde (anders alleen melden)</label>
<label class="check"><input type="checkbox" name="dryRun"${opts.form && !checked(f, 'dryRun') ? '' : html` checked`}> Proefimport: niets opslaan, alleen zeggen wat er zou gebeuren</label>
<button type="submit">Import starten</button>
</form>`,
    );
  };

  scope.get('/importen', (req, reply) => list(req, reply));

  scope.post('/importen', async (req, reply) => {
    platformOnly(req);
    const form = formOf(req.body);
    const answer = await callAdminApi(ui, req, 'POST', API, aanvraagVan(form));
    if (answer.status !== 201) return list(req, reply, { errors: problemMessages(answer), status: answer.status, form });
    const run = answer.body as ImportView;
    req.log.info({ run: run.id, bron: run.bron, dryRun: run.dryRun, by: sessionOf(req).user }, 'import started on the admin screen');
    return redirect(reply, `${BASE}/${run.id}?gedaan=gestart`);
  });

  scope.get<{ Params: { id: string }; Querystring: { gedaan?: string } }>('/importen/:id', async (req, reply) => {
    const session = platformOnly(req);
    if (!UUID.test(req.params.id)) return failed(req, reply, ['Deze import bestaat niet.'], 404);
    const answer = await callAdminApi(ui, req, 'GET', `${API}/${req.params.id}`);
    if (answer.status !== 200) return failed(req, reply, problemMessages(answer), answer.status === 404 ? 404 : 502);
    const r = answer.body as ImportView;
    const acties = (
      r.status === 'bezig' ? (['pauzeren', 'annuleren'] as const) : r.status === 'gepauzeerd' ? (['hervatten', 'annuleren'] as const) : []
    ).map(
      (a) =>
        html`<form method="post" action="${BASE}/${r.id}/${a}" class="inline">${csrfField(session.csrf)}<button type="submit">${ACTIES[a]}</button></form>`,
    );
    const soorten = Object.entries(r.tellingen);
    const s = r.selectie;
    const v = r.inhoudVerificatie;
    return sendPage(
      reply,
      {
        title: `${r.dryRun ? 'Proefimport' : 'Import'} uit ${r.bron}`,
        user: session.user,
        csrf: session.csrf,
        nav: 'importen',
        notice: NOTICES[req.query.gedaan ?? ''],
        refresh: loopt(r.status) ? REFRESH : undefined,
      },
      html`<table class="facts"><tbody>
<tr><th>Status</th><td id="status">${pill(r.status)}${loopt(r.status) ? html` <span class="muted">(ververst elke ${REFRESH} s)</span>` : ''}</td></tr>
${r.fout ? html`<tr><th>Fout</th><td id="fout">${r.fout}</td></tr>` : ''}
<tr><th>Bron</th><td><code>${r.bron}</code> <span class="muted">als client ${r.clientId}</span></td></tr>
<tr><th>Organisatie</th><td>${r.tenant}</td></tr>
<tr><th>Selectie</th><td>${s ? html`${s.zaaktypen.length ? html`zaaktypen ${s.zaaktypen.join(', ')}; ` : ''}${s.vanaf ? html`vanaf ${s.vanaf}; ` : ''}${s.tot ? html`tot en met ${s.tot}; ` : ''}${s.bronorganisatie ? html`bronorganisatie ${s.bronorganisatie}` : ''}` : html`<span class="muted">de hele registratie</span>`}</td></tr>
<tr><th>Tempo</th><td>${tempoVan(r)}</td></tr>
<tr><th>Verwijderen</th><td id="verwijderen">${r.verwijderen === false ? 'nee, alleen melden wat de bron verwijderde' : 'ja, wat de bron sinds de vorige import verwijderde'}</td></tr>
<tr><th>Gestart</th><td>${formatTime(r.aangemaakt)} door ${r.door}</td></tr>
<tr><th>Bijgewerkt</th><td>${formatTime(r.bijgewerkt)}</td></tr>
<tr><th>Workflow</th><td><code>import-${r.id}</code></td></tr>
</tbody></table>
<div class="actions">${acties}</div>

<h2>Voortgang</h2>
<table id="tellingen">
<thead><tr><th>Collectie</th>${UITKOMSTEN.map((u) => html`<th>${u}</th>`)}<th>Inhoud</th></tr></thead>
<tbody>${
        soorten.length
          ? soorten.map(
              ([soort, t]) =>
                html`<tr><td>${soort}</td>${UITKOMSTEN.map((u) => html`<td>${t[u]}</td>`)}<td>${t.bytes ? formatBytes(t.bytes) : ''}</td></tr>`,
            )
          : html`<tr><td colspan="8" class="muted">Nog niets gelezen.</td></tr>`
      }</tbody>
</table>
${
  r.verificatie
    ? html`<h2>Controle</h2>
<table id="verificatie"><thead><tr><th>Collectie</th><th>In de bron</th><th>Hier</th></tr></thead><tbody>${Object.entries(r.verificatie).map(
        ([k, x]) =>
          html`<tr><td>${k}</td><td>${x.bron}</td><td>${x.hier}${x.bron === x.hier ? '' : html` <span class="pill bad">anders</span>`}</td></tr>`,
      )}</tbody></table>`
    : ''
}
${v ? html`<p id="inhoud">Inhoud van ${v.versies} documentversies vergeleken (grootte en SHA-256): ${v.aantalAfwijkend ? html`<strong>${v.aantalAfwijkend} wijken af</strong>` : 'alle gelijk'}.</p>` : ''}
${opruimingVan(r.opruiming, r)}
<h2>Niet opgeslagen</h2>
${
  r.fouten.length
    ? html`<table id="fouten"><thead><tr><th>Object in de bron</th><th>Waarom</th></tr></thead><tbody>${r.fouten.map(
        (f) => html`<tr><td><code>${f.url}</code></td><td>${f.reden}</td></tr>`,
      )}</tbody></table>`
    : html`<p class="muted" id="fouten">Geen.</p>`
}
<p><a href="${BASE}">Alle importen</a></p>`,
    );
  });

  for (const actie of Object.keys(ACTIES) as (keyof typeof ACTIES)[]) {
    scope.post<{ Params: { id: string } }>(`/importen/:id/${actie}`, async (req, reply) => {
      platformOnly(req);
      if (!UUID.test(req.params.id)) return failed(req, reply, ['Deze import bestaat niet.'], 404);
      const answer = await callAdminApi(ui, req, 'POST', `${API}/${req.params.id}/${actie}`);
      if (answer.status !== 200) return failed(req, reply, problemMessages(answer), answer.status);
      req.log.info({ run: req.params.id, actie, by: sessionOf(req).user }, 'import action on the admin screen');
      return redirect(reply, `${BASE}/${req.params.id}?gedaan=${actie}`);
    });
  }
}
