import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { OVERDRACHT_STATUSSEN, type OverdrachtStatus, type Stap, type Weigering } from '@zgw/shared';
import { html, type Html } from '../../common/http/html';
import { UUID } from '../../common/http/urls';
import { formatTime } from './audit';
import { callAdminApi, problemMessages, sessionOf, type AdminUi } from './context';
import { formOf, lines } from './forms';
import { apiPager, csrfField, redirect, sendPage, UI, type PageOf } from './layout';

const API = '/admin/api/v1/overdrachten';
const CONFIG_API = '/admin/api/v1/doelregistraties';
const INSTELLINGEN_API = '/admin/api/v1/overdrachten/instellingen';
const BASE = `${UI}/overdrachten`;

interface Overdracht {
  uuid: string;
  zaak: string;
  zaakIdentificatie: string;
  doelregistratie: string;
  richting: 'intern' | 'uit' | 'in';
  toelichting: string;
  antwoordUrl: string | null;
  status: OverdrachtStatus;
  stappen: Stap[];
  doelZaak: string | null;
  weigering: Weigering | null;
  fout: string;
  workflowId: string;
  aanmaakdatum: string;
  temporalUrl: string | null;
}

interface Doelregistratie {
  naam: string;
  route: 'intern' | 'extern';
  rsin: string;
  catalogus: string;
  zaaktypen: { bron: string; doel: string; afsluitResultaat?: string }[];
  bron: 'afsluiten' | 'openlaten';
  zakenApi?: string;
  clientId?: string;
  secretOpgeslagen: boolean;
}

const STATUS_CLASS: Record<OverdrachtStatus, string> = {
  ontvangen: '',
  bezig: '',
  afgerond: 'on',
  geweigerd: 'bad',
  mislukt: 'bad',
  geannuleerd: 'bad',
};
const RICHTING: Record<Overdracht['richting'], string> = { intern: 'intern', uit: 'naar extern systeem', in: 'van extern systeem' };
const NOTICES: Record<string, string> = {
  doelregistratie: 'De doelregistratie is opgeslagen.',
  verwijderd: 'De doelregistratie is verwijderd.',
  geannuleerd: 'Annuleren is gevraagd: de workflow verwijdert wat hij in het doel maakte en eindigt als geannuleerd.',
  opnieuw: 'De overdracht is opnieuw gestart; elke stap vindt terug wat een eerdere poging al maakte.',
  instellingen: 'Opgeslagen: van welke organisaties deze organisatie overdrachten aanneemt.',
};

const pill = (s: OverdrachtStatus): Html => html`<span class="pill ${STATUS_CLASS[s] ?? ''}" data-status="${s}">${s}</span>`;

/**
 * Transfers (ZSDMS): every overdracht with its steps, refusal, failure and reply, linked to its workflow in the
 * Temporal web UI; cancel a running one, retry a failed one; the doelregistraties they go to; and the organisations
 * this one takes transfers from. Everything goes through the admin endpoints (admin/overdrachten.ts,
 * admin/doelregistraties.ts, admin/overdracht-instellingen.ts).
 */
export function registerOverdrachtScreens(scope: FastifyInstance, ui: AdminUi): void {
  const failed = (req: FastifyRequest, reply: FastifyReply, errors: string[], status: number) => {
    const session = sessionOf(req);
    return sendPage(
      reply,
      { title: 'Overdrachten', user: session.user, csrf: session.csrf, nav: 'overdrachten', errors, status },
      html`<p><a href="${BASE}">Alle overdrachten</a></p>`,
    );
  };

  scope.get<{ Querystring: { status?: string; page?: string; cursor?: string; gedaan?: string } }>('/overdrachten', async (req, reply) => {
    const session = sessionOf(req);
    const status = (OVERDRACHT_STATUSSEN as readonly string[]).includes(req.query.status ?? '') ? req.query.status : undefined;
    const q = new URLSearchParams(
      Object.entries({ status, page: req.query.page, cursor: req.query.cursor }).filter((e): e is [string, string] => !!e[1]),
    );
    const [answer, config, instellingen] = await Promise.all([
      callAdminApi(ui, req, 'GET', `${API}${q.size ? `?${q}` : ''}`),
      callAdminApi(ui, req, 'GET', CONFIG_API),
      callAdminApi(ui, req, 'GET', INSTELLINGEN_API),
    ]);
    if (answer.status !== 200) return failed(req, reply, problemMessages(answer), 502);
    const list = answer.body as PageOf<Overdracht>;
    const regs = config.status === 200 ? (config.body as PageOf<Doelregistratie>).results : [];
    const accepteertVan = instellingen.status === 200 ? (instellingen.body as { accepteertVan: string[] }).accepteertVan : [];
    const rows = list.results.map(
      (o) => html`<tr>
  <td><a href="${BASE}/${o.uuid}">${o.zaakIdentificatie}</a></td>
  <td>${o.doelregistratie} <div class="muted">${RICHTING[o.richting]}</div></td>
  <td>${pill(o.status)}${o.weigering ? html`<div class="muted">${o.weigering.code}</div>` : ''}</td>
  <td>${o.stappen.length ? o.stappen[o.stappen.length - 1]!.stap : ''}</td>
  <td>${formatTime(o.aanmaakdatum)}</td>
</tr>`,
    );
    return sendPage(
      reply,
      { title: 'Overdrachten', user: session.user, csrf: session.csrf, nav: 'overdrachten', notice: NOTICES[req.query.gedaan ?? ''] },
      html`<p>Elke overdracht is een Temporal-workflow: valideren, de zaak met alles wat erbij hoort kopiëren naar de doelregistratie, controleren, de bronzaak koppelen en (volgens de doelregistratie) afsluiten, antwoorden.</p>
<nav class="actions" aria-label="Filter">${[undefined, ...OVERDRACHT_STATUSSEN].map((s) =>
        s === status ? html`<strong>${s ?? 'alle'}</strong>` : html`<a href="${BASE}${s ? `?status=${s}` : ''}">${s ?? 'alle'}</a>`,
      )}</nav>
<table>
<thead><tr><th>Zaak</th><th>Doelregistratie</th><th>Status</th><th>Laatste stap</th><th>Ontvangen</th></tr></thead>
<tbody>${rows.length ? rows : html`<tr><td colspan="5" class="muted">Geen overdrachten.</td></tr>`}</tbody>
</table>
${apiPager(BASE, list, req.query.page, status ? { status } : {})}
<h2>Doelregistraties</h2>
<p class="muted">Ook te beheren via <code>${CONFIG_API}</code> of <code>ZGW_DOELREGISTRATIES</code> (zie docs/transfers.md).</p>
<p><a href="${BASE}/doelregistraties/nieuw">Nieuwe doelregistratie</a></p>
<table id="doelregistraties">
<thead><tr><th>Naam</th><th>Route</th><th>Organisatie (RSIN)</th><th>Zaaktypen</th><th>Bronzaak</th><th>Systeem</th></tr></thead>
<tbody>${
        regs.length
          ? regs.map(
              (
                r,
              ) => html`<tr><td><a href="${BASE}/doelregistraties/${encodeURIComponent(r.naam)}">${r.naam}</a></td><td>${r.route}</td><td>${r.rsin}</td><td>${r.zaaktypen.map((k) => html`<div>${k.bron} → ${k.doel}</div>`)}</td><td>${r.bron}</td>
<td>${r.route === 'extern' ? html`<code>${r.zakenApi ?? ''}</code><div class="muted">client ${r.clientId ?? ''}${r.secretOpgeslagen ? ', secret opgeslagen' : ', geen secret'}</div>` : html`<span class="muted">dit platform</span>`}</td></tr>`,
            )
          : html`<tr><td colspan="6" class="muted">Nog geen doelregistraties.</td></tr>`
      }</tbody>
</table>
<h2>Overdrachten aannemen</h2>
<p>Andere organisaties op dit platform kunnen een zaak alleen aan deze organisatie overdragen als zij hier staan (RSIN, één per regel). Ook via <code>${INSTELLINGEN_API}</code>.</p>
<form method="post" action="${BASE}/instellingen" id="overdrachtinstellingen">${csrfField(session.csrf)}
<label for="accepteertVan">Neemt overdrachten aan van</label>
<textarea id="accepteertVan" name="accepteertVan" rows="4">${accepteertVan.join('\n')}</textarea>
<div class="actions"><button type="submit">Opslaan</button></div>
</form>`,
    );
  });

  scope.post('/overdrachten/instellingen', async (req, reply) => {
    const tekst = formOf(req.body).accepteertVan;
    const accepteertVan = lines(typeof tekst === 'string' ? tekst : '');
    const answer = await callAdminApi(ui, req, 'PUT', INSTELLINGEN_API, { accepteertVan });
    if (answer.status !== 200) return failed(req, reply, problemMessages(answer), answer.status === 403 ? 403 : 400);
    req.log.info({ accepteertVan, by: sessionOf(req).user }, 'overdrachtinstellingen changed on the admin screen');
    return redirect(reply, `${BASE}?gedaan=instellingen`);
  });

  scope.get<{ Params: { uuid: string }; Querystring: { gedaan?: string } }>('/overdrachten/:uuid', async (req, reply) => {
    const session = sessionOf(req);
    const uuid = req.params.uuid;
    if (!UUID.test(uuid)) return failed(req, reply, ['Deze overdracht bestaat niet.'], 404);
    const answer = await callAdminApi(ui, req, 'GET', `${API}/${uuid}`);
    if (answer.status !== 200) return failed(req, reply, problemMessages(answer), answer.status === 404 ? 404 : 502);
    const o = answer.body as Overdracht;
    const loopt = o.status === 'ontvangen' || o.status === 'bezig';
    return sendPage(
      reply,
      {
        title: `Overdracht ${o.zaakIdentificatie}`,
        user: session.user,
        csrf: session.csrf,
        nav: 'overdrachten',
        notice: NOTICES[req.query.gedaan ?? ''],
      },
      html`<table class="facts"><tbody>
<tr><th>Zaak</th><td>${o.zaakIdentificatie}<div><code>${o.zaak}</code></div></td></tr>
<tr><th>Doelregistratie</th><td>${o.doelregistratie} <span class="muted">(${RICHTING[o.richting]})</span></td></tr>
<tr><th>Status</th><td id="status">${pill(o.status)}</td></tr>
${o.weigering ? html`<tr><th>Geweigerd</th><td id="weigering"><code>${o.weigering.code}</code> ${o.weigering.reden}</td></tr>` : ''}
${o.fout ? html`<tr><th>Fout</th><td id="fout">${o.fout}</td></tr>` : ''}
<tr><th>Doelzaak</th><td>${o.doelZaak ? html`<code>${o.doelZaak}</code>` : html`<span class="muted">nog niet</span>`}</td></tr>
<tr><th>Antwoord naar</th><td>${o.antwoordUrl ? html`<code>${o.antwoordUrl}</code>` : html`<span class="muted">alleen de notificatie op kanaal overdrachten</span>`}</td></tr>
${o.toelichting ? html`<tr><th>Toelichting</th><td>${o.toelichting}</td></tr>` : ''}
<tr><th>Workflow</th><td>${o.temporalUrl ? html`<a id="temporal" href="${o.temporalUrl}">${o.workflowId}</a>` : html`<code>${o.workflowId}</code>`}</td></tr>
<tr><th>Ontvangen</th><td>${formatTime(o.aanmaakdatum)}</td></tr>
</tbody></table>

<div class="actions">
${loopt ? html`<form method="post" action="${BASE}/${uuid}/annuleren" class="inline">${csrfField(session.csrf)}<button type="submit">Annuleren</button></form>` : ''}
${o.status === 'mislukt' ? html`<form method="post" action="${BASE}/${uuid}/opnieuw" class="inline">${csrfField(session.csrf)}<button type="submit">Opnieuw proberen</button></form>` : ''}
</div>

<h2>Stappen</h2>
<table id="stappen"><thead><tr><th>Stap</th><th>Begonnen</th><th>Klaar</th><th>Toelichting</th></tr></thead><tbody>${o.stappen.map(
        (s) =>
          html`<tr><td>${s.stap}</td><td>${formatTime(s.start)}</td><td>${s.einde ? formatTime(s.einde) : html`<span class="muted">bezig</span>`}</td><td>${s.toelichting}</td></tr>`,
      )}</tbody></table>
<p><a href="${BASE}">Alle overdrachten</a></p>`,
    );
  });

  for (const [actie, api] of [
    ['annuleren', 'annuleren'],
    ['opnieuw', 'opnieuw'],
  ] as const) {
    scope.post<{ Params: { uuid: string } }>(`/overdrachten/:uuid/${actie}`, async (req, reply) => {
      const uuid = req.params.uuid;
      if (!UUID.test(uuid)) return failed(req, reply, ['Deze overdracht bestaat niet.'], 404);
      const answer = await callAdminApi(ui, req, 'POST', `${API}/${uuid}/${api}`);
      if (answer.status !== 202) return failed(req, reply, problemMessages(answer), answer.status);
      req.log.info({ overdracht: uuid, by: sessionOf(req).user, actie }, 'transfer action on the admin screen');
      return redirect(reply, `${BASE}/${uuid}?gedaan=${actie === 'annuleren' ? 'geannuleerd' : 'opnieuw'}`);
    });
  }
}
