import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { html } from '../../common/http/html';
import { ZgwError } from '../../common/http/errors';
import type { TenantView } from '../tenants';
import { callAdminApi, problemMessages, sessionOf, type AdminUi } from './context';
import { field, formOf } from './forms';
import { csrfField, redirect, sendPage, UI } from './layout';
import type { AdminSessions } from './sessions';

const BASE = `${UI}/organisaties`;
const API = '/admin/api/v1/tenants';

const NOTICES: Record<string, string> = {
  aangemaakt:
    'De organisatie is aangemaakt. Geef haar clients op Applicaties (na "Beheren") of met npm run credentials -- add <client id> --tenant <rsin>.',
};

/** Bytes as people read them (1 kB = 1000 bytes). */
export function formatBytes(bytes: number): string {
  const units = ['bytes', 'kB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  return unit === 0 ? `${bytes} bytes` : `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

/**
 * The organisations (tenants) of the installation, for platform administrators: each with its zaken, documents,
 * storage and clients; a new one; and which one the screens manage ("Beheren": every other screen then shows and
 * changes that organisation's applicaties, abonnementen, overdrachten and audit settings).
 */
export function registerOrganisatieScreens(scope: FastifyInstance, ui: AdminUi, sessions: AdminSessions): void {
  const page = async (
    req: FastifyRequest,
    reply: FastifyReply,
    opts: { errors?: string[]; status?: number; notice?: string; draft?: { rsin: string; naam: string } },
  ) => {
    const session = sessionOf(req);
    if (!session.platform) throw ZgwError.forbidden('Alleen beheerders van het platform zien de organisaties.', 'platform-admin');
    const answer = await callAdminApi(ui, req, 'GET', API);
    if (answer.status !== 200) throw new ZgwError(answer.status, 'invalid', problemMessages(answer).join(' '));
    const rows = (answer.body as TenantView[]).map(
      (t) => html`<tr${t.rsin === session.tenant ? html` aria-current="true"` : ''}>
  <td><code>${t.rsin}</code></td><td>${t.naam}</td>
  <td class="num">${t.aantallen.zaken}</td><td class="num">${t.aantallen.documenten}</td><td class="num">${formatBytes(t.opslag)}</td><td class="num">${t.aantallen.clients}</td>
  <td>${
    t.rsin === session.tenant
      ? html`<span class="pill on">wordt beheerd</span>`
      : html`<form method="post" action="${BASE}/beheren" class="inline">${csrfField(session.csrf)}<input type="hidden" name="rsin" value="${t.rsin}"><button type="submit" class="secondary">Beheren</button></form>`
  }</td>
</tr>`,
    );
    const draft = opts.draft ?? { rsin: '', naam: '' };
    return sendPage(
      reply,
      {
        title: 'Organisaties',
        user: session.user,
        csrf: session.csrf,
        nav: 'organisaties',
        errors: opts.errors,
        status: opts.status,
        notice: opts.notice,
      },
      html`<p>Elke organisatie (tenant, genoemd naar haar RSIN) ziet alleen haar eigen zaken, documenten, besluiten, catalogi, applicaties en abonnementen.
De andere schermen tonen de organisatie die hier "wordt beheerd".</p>
<table>
<thead><tr><th>RSIN</th><th>Naam</th><th>Zaken</th><th>Documenten</th><th>Opslag</th><th>Clients</th><th></th></tr></thead>
<tbody>${rows}</tbody>
</table>
<h2>Nieuwe organisatie</h2>
<form method="post" action="${BASE}" class="login">${csrfField(session.csrf)}
  <label for="rsin">RSIN (negen cijfers, elfproef)</label><input id="rsin" name="rsin" type="text" inputmode="numeric" maxlength="9" required value="${draft.rsin}">
  <label for="naam">Naam</label><input id="naam" name="naam" type="text" maxlength="200" required value="${draft.naam}">
  <div class="actions"><button type="submit">Aanmaken</button></div>
</form>`,
    );
  };

  scope.get<{ Querystring: { gedaan?: string } }>('/organisaties', async (req, reply) =>
    page(req, reply, { notice: NOTICES[req.query.gedaan ?? ''] }),
  );

  scope.post('/organisaties', async (req, reply) => {
    const form = formOf(req.body);
    const draft = { rsin: field(form, 'rsin'), naam: field(form, 'naam') };
    const answer = await callAdminApi(ui, req, 'POST', API, draft);
    if (answer.status !== 201) {
      const labels: Record<string, string> = { rsin: 'RSIN', naam: 'Naam' };
      return page(req, reply, { draft, status: answer.status, errors: problemMessages(answer, (n) => labels[n] ?? n) });
    }
    req.log.info({ user: sessionOf(req).user, tenant: draft.rsin }, 'tenant created on the admin screen');
    return redirect(reply, `${BASE}?gedaan=aangemaakt`);
  });

  /** A platform administrator's screens manage another organisation from now on. */
  scope.post('/organisaties/beheren', async (req, reply) => {
    const session = sessionOf(req);
    const rsin = field(formOf(req.body), 'rsin');
    if (!session.platform) throw ZgwError.forbidden('Alleen beheerders van het platform kiezen een andere organisatie.', 'platform-admin');
    if (!(await ui.deps.tenants.get(rsin))) throw ZgwError.notFound(`Organisatie ${rsin} bestaat niet.`);
    await sessions.actIn(session, rsin);
    req.log.info({ user: session.user, tenant: rsin }, 'administrator manages another tenant on the admin screens');
    return redirect(reply, `${UI}/`);
  });
}
