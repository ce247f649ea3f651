import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { releaseLabel } from '@zgw/shared';
import type { ComponentApi, Deps } from '../../common/platform/component';
import { ZgwError, notFound } from '../../common/http/errors';
import { registerApplicatieScreens } from './applicaties';
import { registerAbonnementScreens } from './abonnementen';
import { registerDoelregistratieScreens } from './doelregistraties';
import { registerOverdrachtScreens } from './overdrachten';
import { registerAuditScreens } from './audit';
import { registerArchiefScreens } from './archief';
import { registerVernietigingslijstScreens } from './vernietigingslijsten';
import { sessionCaller, sessionOf, type AdminUi } from './context';
import { registerOrganisatieScreens } from './organisaties';
import { registerImportScreens } from './importen';
import { registerCatalogusScreens } from './catalogi';
import { formOf, parseForm } from './forms';
import { html } from '../../common/http/html';
import { csrfField, redirect, REFERENCE, sendPage, UI } from './layout';
import { passwordProblem } from './passwords';
import { registerBeheerderScreens } from './beheerders';
import { registerLoginScreens, SESSION_COOKIE, sessionCookie } from './login';
import { AdminOidc, OIDC_USER_PREFIX } from './oidc';
import { PendingLogins } from './second-factor';
import { AdminSessions, csrfMatches, parseCookies, type Session } from './sessions';
import { CSS, JS } from './static';
import { AdminUsers, ensureInitialAdmin } from './users';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const FORM_LIMIT = 256 * 1024;

/**
 * The admin screens under /admin: their own login (administrators with a name and password, not ZGW clients),
 * sessions in MongoDB (HttpOnly, SameSite=Strict cookie, path /admin), a CSRF token on every state-changing request.
 * A session also opens the admin JSON endpoints (/admin/api/...) to the screens, with the CSRF token in
 * `X-CSRF-Token` on anything but a read: the screens use those endpoints as any client would.
 * `apis` holds the mounted components once they are mounted.
 */
const isAdminApi = (url: string): boolean => url.startsWith('/admin/api/');

export async function registerAdminUi(app: FastifyInstance, deps: Deps, apis: readonly ComponentApi[]): Promise<void> {
  const users = new AdminUsers(deps.db);
  const sessions = new AdminSessions(deps.db, deps.config.ADMIN_SESSION_IDLE_MINUTES * 60_000, deps.config.ADMIN_SESSION_MAX_HOURS * 3_600_000);
  const pending = new PendingLogins(deps.db, deps.pii);
  const oidc = new AdminOidc(deps.config, deps.db, deps.log);
  await Promise.all([sessions.ensureIndexes(), pending.ensureIndexes(), oidc.ensureIndexes(), users.ensureIndexes()]);
  await ensureInitialAdmin(users, deps.config, deps.log);
  const secure = deps.config.PUBLIC_BASE_URL.startsWith('https:');
  const ui: AdminUi = { deps, root: app, apis };
  const ownHosts = new Set([new URL(deps.config.PUBLIC_BASE_URL).host]);
  const crossSite = (req: FastifyRequest) => fromOtherSite(req, ownHosts);

  // The admin screens run in their session; the admin JSON endpoints take a session in place of a ZGW token (never
  // the ZGW APIs themselves), with its CSRF token on changes. Either acts as the session's administrator.
  app.addHook('onRequest', async (req) => {
    if (!req.url.startsWith(`${UI}/`)) return;
    const api = isAdminApi(req.url);
    if (api && req.headers.authorization) return;
    const session = await sessions.get(parseCookies(req.headers.cookie)[SESSION_COOKIE]);
    if (!session) return;
    if (api && !SAFE_METHODS.has(req.method) && (!csrfMatches(req.headers['x-csrf-token'], session.csrf) || crossSite(req))) {
      throw new ZgwError(403, 'csrf', 'Een wijziging met een beheersessie vraagt het CSRF-token van die sessie in header X-CSRF-Token.');
    }
    req.adminSession = session;
    req.adminCaller = sessionCaller(session);
  });

  await app.register(
    async (scope) => {
      scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: FORM_LIMIT }, (_req, body, done) => {
        done(null, parseForm(String(body)));
      });
      scope.setErrorHandler((err: Error & { statusCode?: number }, req, reply) => {
        const status = err instanceof ZgwError ? err.status : err.statusCode && err.statusCode < 500 ? err.statusCode : 500;
        if (status >= 500) req.log.error({ err }, 'admin screen failed');
        const message = status >= 500 ? 'Er ging iets mis; zie de serverlog.' : err.message;
        return sendPage(
          reply,
          { title: 'Fout', user: req.adminSession?.user, csrf: req.adminSession?.csrf, errors: [message], status },
          html`<p><a href="${UI}/">Naar het overzicht</a></p>`,
        );
      });
      // An unknown admin JSON endpoint is a 404 in the ZGW problem format, whoever asks; an unknown screen a page.
      scope.setNotFoundHandler((req, reply) =>
        isAdminApi(req.url)
          ? notFound(req, reply)
          : sendPage(
              reply,
              { title: 'Niet gevonden', user: req.adminSession?.user, status: 404 },
              html`<p>Deze pagina bestaat niet. <a href="${UI}/">Naar het overzicht</a></p>`,
            ),
      );

      // Every route but the public ones needs a live session; every state-changing one the session's CSRF token.
      scope.addHook('preHandler', async (req, reply) => {
        if (req.routeOptions.config.adminPublic || isAdminApi(req.url)) return;
        const session = req.adminSession;
        if (!session) {
          const next = req.method === 'GET' ? `?next=${encodeURIComponent(req.url)}` : '?verlopen=1';
          return redirect(reply, `${UI}/login${next}`);
        }
        if (!SAFE_METHODS.has(req.method) && (!csrfMatches(formOf(req.body)._csrf, session.csrf) || crossSite(req))) {
          req.log.warn({ user: session.user, url: req.url }, 'admin form refused: CSRF token missing or wrong');
          return sendPage(
            reply,
            {
              title: 'Niet uitgevoerd',
              user: session.user,
              csrf: session.csrf,
              status: 403,
              errors: ['Dit formulier is verlopen of komt niet van deze site (CSRF-controle). Er is niets gewijzigd.'],
            },
            html`<p><a href="${UI}/">Naar het overzicht</a></p>`,
          );
        }
        return undefined;
      });

      // Logging out of a provider's session continues at the provider: the logout form may lead there.
      if (oidc.enabled) {
        scope.addHook('onSend', async (_req, reply, payload) => {
          const csp = reply.getHeader('content-security-policy');
          if (typeof csp === 'string')
            reply.header('content-security-policy', csp.replace("form-action 'self'", `form-action 'self' ${oidc.origin}`));
          return payload;
        });
      }

      scope.get('/static/admin.css', { config: { adminPublic: true } }, async (_req, reply) =>
        reply.header('Cache-Control', 'public, max-age=3600').header('X-Content-Type-Options', 'nosniff').type('text/css; charset=utf-8').send(CSS),
      );
      scope.get('/static/admin.js', { config: { adminPublic: true } }, async (_req, reply) =>
        reply
          .header('Cache-Control', 'public, max-age=3600')
          .header('X-Content-Type-Options', 'nosniff')
          .type('text/javascript; charset=utf-8')
          .send(JS),
      );

      registerLoginScreens(scope, { deps, users, sessions, pending, oidc, secure, crossSite });

      scope.get('/', async (req, reply) => {
        const session = sessionOf(req);
        const versions = apis.map((a) => html`<li>${a.def.title} <span class="muted">${a.defaultVersion}</span></li>`);
        return sendPage(
          reply,
          { title: 'Beheer', user: session.user, csrf: session.csrf, nav: 'home' },
          html`<div class="cards">
  <section class="card"><h2><a href="${UI}/applicaties">Applicaties</a></h2><p>Client ids, secrets en autorisaties van de applicaties die de API's gebruiken.</p></section>
  <section class="card"><h2><a href="${UI}/catalogi">Catalogi</a></h2><p>Een catalogus exporteren als ZIP, of importeren (van dit platform of van Open Zaak).</p></section>
  <section class="card"><h2><a href="${UI}/abonnementen">Abonnementen</a></h2><p>Abonnementen op notificaties: status, laatste pogingen, ontgrendelen en opnieuw versturen.</p></section>
  <section class="card"><h2><a href="${UI}/overdrachten">Overdrachten</a></h2><p>Overdrachten van zaken aan andere registraties: stappen, weigeringen, annuleren en opnieuw proberen; de doelregistraties.</p></section>
  <section class="card"><h2><a href="${UI}/archief">Archief</a></h2><p>Afgesloten zaken zonder archiefactiedatum of archiefnominatie (de werklijst), en zaken onder juridische bewaring.</p></section>
  <section class="card"><h2><a href="${UI}/vernietigingslijsten">Vernietiging</a></h2><p>Vernietigingslijsten maken, per stap beoordelen, uitvoeren en volgen; de verklaring van vernietiging.</p></section>
  <section class="card"><h2><a href="${UI}/audit">Audit</a></h2><p>Client ids waarvan het lezen niet in de audit trail komt.</p></section>
  ${session.platform ? html`<section class="card"><h2><a href="${UI}/organisaties">Organisaties</a></h2><p>De organisaties (tenants) van dit platform: aantallen, opslag, een nieuwe, en welke deze schermen beheren (nu <code>${session.tenant}</code>).</p></section>` : ''}
  ${session.platform ? html`<section class="card"><h2><a href="${UI}/importen">Importen</a></h2><p>Een hele registratie overbrengen uit Open Zaak, OneGround of een andere ZGW-registratie, met voortgang en controle.</p></section>` : ''}
  <section class="card"><h2><a href="${REFERENCE}">API-referentie</a></h2><p>De OpenAPI-documenten van alle componenten, leesbaar.</p></section>
</div>
<h2>Platform</h2>
<p>Release <strong>${releaseLabel()}</strong></p>
<ul>${versions}</ul>`,
        );
      });

      const atProvider = (reply: FastifyReply, session: Session) =>
        sendPage(
          reply,
          { title: 'Wachtwoord wijzigen', user: session.user, csrf: session.csrf, nav: 'wachtwoord', status: 400 },
          html`<p>U bent ingelogd via de identity provider: uw wachtwoord en tweede factor beheert u daar.</p>`,
        );
      scope.get('/wachtwoord', async (req, reply) => {
        const session = sessionOf(req);
        if (session.user.startsWith(OIDC_USER_PREFIX)) return atProvider(reply, session);
        return sendPage(reply, { title: 'Wachtwoord wijzigen', user: session.user, csrf: session.csrf, nav: 'wachtwoord' }, passwordForm(session));
      });
      scope.post('/wachtwoord', async (req, reply) => {
        const session = sessionOf(req);
        if (session.user.startsWith(OIDC_USER_PREFIX)) return atProvider(reply, session);
        const form = formOf(req.body);
        const current = typeof form.huidig === 'string' ? form.huidig : '';
        const next = typeof form.nieuw === 'string' ? form.nieuw : '';
        const errors: string[] = [];
        const problem = passwordProblem(next);
        if (problem) errors.push(problem);
        if (next !== form.herhaal) errors.push('Het nieuwe wachtwoord en de herhaling verschillen.');
        if (!errors.length && !(await users.login(session.user, current)).ok) errors.push('Het huidige wachtwoord klopt niet.');
        if (errors.length)
          return sendPage(
            reply,
            { title: 'Wachtwoord wijzigen', user: session.user, csrf: session.csrf, nav: 'wachtwoord', errors, status: 400 },
            passwordForm(session),
          );
        await users.setPassword(session.user, next);
        // Every other session of this administrator ends; this one continues under a new token.
        await sessions.destroyAllOf(session.user);
        const fresh = await sessions.create(session.user, session);
        req.log.info({ user: session.user }, 'administrator changed their password');
        reply.header('Set-Cookie', sessionCookie(fresh, secure, deps.config.ADMIN_SESSION_MAX_HOURS));
        return sendPage(
          reply,
          {
            title: 'Wachtwoord wijzigen',
            user: fresh.user,
            csrf: fresh.csrf,
            nav: 'wachtwoord',
            notice: 'Uw wachtwoord is gewijzigd; andere sessies zijn beëindigd.',
          },
          html``,
        );
      });

      registerApplicatieScreens(scope, ui);
      registerAbonnementScreens(scope, ui);
      registerOverdrachtScreens(scope, ui);
      registerDoelregistratieScreens(scope, ui);
      registerArchiefScreens(scope, ui);
      registerVernietigingslijstScreens(scope, ui);
      registerAuditScreens(scope, ui);
      registerBeheerderScreens(scope, ui, users, sessions);
      registerOrganisatieScreens(scope, ui, sessions);
      registerImportScreens(scope, ui);
      await registerCatalogusScreens(scope, ui);
    },
    { prefix: UI },
  );
}

function passwordForm(session: Session) {
  return html`<form method="post" action="${UI}/wachtwoord" class="login">${csrfField(session.csrf)}
  <input type="text" name="naam" value="${session.user}" autocomplete="username" hidden>
  <label for="huidig">Huidig wachtwoord</label><input id="huidig" name="huidig" type="password" autocomplete="current-password" required>
  <label for="nieuw">Nieuw wachtwoord (minstens 12 tekens)</label><input id="nieuw" name="nieuw" type="password" autocomplete="new-password" required minlength="12">
  <label for="herhaal">Herhaal het nieuwe wachtwoord</label><input id="herhaal" name="herhaal" type="password" autocomplete="new-password" required>
  <div class="actions"><button type="submit">Wijzigen</button></div>
</form>`;
}

/**
 * A request that the browser says comes from another site (Fetch metadata, or an Origin other than this host or
 * PUBLIC_BASE_URL's): refused for changes even with a token, as a second line behind the token and the SameSite cookie.
 */
export function fromOtherSite(req: FastifyRequest, ownHosts: ReadonlySet<string>): boolean {
  if (req.headers['sec-fetch-site'] === 'cross-site') return true;
  const origin = req.headers.origin;
  if (origin === undefined) return false;
  try {
    const host = new URL(origin).host;
    return !(host === req.headers.host || ownHosts.has(host));
  } catch {
    return true; // "null" (a sandboxed or opaque origin) and anything unreadable
  }
}
