import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { openSecret, sealSecret } from '@zgw/shared';
import type { Deps } from '../../common/platform/component';
import { html } from '../../common/http/html';
import { roleOf, sessionOf } from './context';
import { field, formOf } from './forms';
import { redirect, sendPage, UI } from './layout';
import type { AdminOidc } from './oidc';
import {
  enrolmentQr,
  MAX_CODE_TRIES,
  PENDING_MINUTES,
  recoveryHash,
  stepOfCode,
  type Enrolment,
  type PendingLogin,
  type PendingLogins,
} from './second-factor';
import { csrfMatches, parseCookies, serializeCookie, type AdminSessions, type Session } from './sessions';
import type { AdminUser, AdminUsers } from './users';

export const SESSION_COOKIE = 'zgw_beheer';
/** The login form's own token (double submit: cookie and form field), so no other site can log a browser in. */
const LOGIN_COOKIE = 'zgw_beheer_login';
/** A login between its password and its second factor (also double submit, path /admin/login). */
const PENDING_COOKIE = 'zgw_beheer_2fa';
/** The provider login's state, nonce and verifier: SameSite=Lax, since it has to come back on the provider's redirect. */
const OIDC_COOKIE = 'zgw_beheer_oidc';

export interface LoginContext {
  deps: Deps;
  users: AdminUsers;
  sessions: AdminSessions;
  pending: PendingLogins;
  oidc: AdminOidc;
  secure: boolean;
  crossSite: (req: FastifyRequest) => boolean;
}

export function sessionCookie(session: Session, secure: boolean, maxHours: number): string {
  return serializeCookie(SESSION_COOKIE, session.token, { path: UI, maxAgeSeconds: maxHours * 3600, secure });
}

/** Where to go after login: only a page of the admin screens (no other host, no protocol-relative URL). */
export function safeNext(next: string | undefined): string | undefined {
  if (!next || next.length > 500) return undefined;
  if (next !== UI && !next.startsWith(`${UI}/`)) return undefined;
  if (next.startsWith('//') || /[\\\s]/.test(next) || next.startsWith(`${UI}/login`) || next.startsWith(`${UI}/oidc`)) return undefined;
  return next;
}

/**
 * The ways in: a name and password followed by a second factor (TOTP, set up at the first login; or a recovery code),
 * unless ADMIN_LOCAL_LOGIN=false; and the organisation's OpenID Connect provider when ADMIN_OIDC_ISSUER is set. Both
 * end in the same session; logging out of a provider's session signs out there too where the provider offers that.
 */
export function registerLoginScreens(scope: FastifyInstance, l: LoginContext): void {
  const { deps, users, sessions, pending, oidc, secure } = l;
  const local = deps.config.ADMIN_LOCAL_LOGIN === 'true';
  const clear = (name: string, path: string) => serializeCookie(name, '', { path, maxAgeSeconds: 0, secure });

  const loginPage = (reply: FastifyReply, req: FastifyRequest, opts: { errors?: string[]; notice?: string; status?: number; next?: string }) => {
    const token = parseCookies(req.headers.cookie)[LOGIN_COOKIE] ?? randomBytes(24).toString('base64url');
    reply.header('Set-Cookie', serializeCookie(LOGIN_COOKIE, token, { path: `${UI}/login`, maxAgeSeconds: 3600, secure }));
    const viaProvider = oidc.enabled
      ? html`<p class="provider"><a class="button" href="${UI}/oidc/login${opts.next ? `?next=${encodeURIComponent(opts.next)}` : ''}">Inloggen via de identity provider</a></p>`
      : '';
    const form = local
      ? html`<form class="login" method="post" action="${UI}/login">
  <input type="hidden" name="_login" value="${token}">
  <input type="hidden" name="next" value="${opts.next ?? ''}">
  <label for="naam">Naam</label><input id="naam" name="naam" type="text" autocomplete="username" required${oidc.enabled ? '' : ' autofocus'}>
  <label for="wachtwoord">Wachtwoord</label><input id="wachtwoord" name="wachtwoord" type="password" autocomplete="current-password" required>
  <div class="actions"><button type="submit">Inloggen</button></div>
</form>
<p class="muted">Na het wachtwoord vraagt het platform een code uit uw authenticator-app (de eerste keer stelt u die in).
Nog geen beheerder? Zie docs/admin.md: ADMIN_INITIAL_PASSWORD of <code>npm run admin -- add &lt;naam&gt;</code>.</p>`
      : '';
    return sendPage(reply, { title: 'Inloggen', errors: opts.errors, notice: opts.notice, status: opts.status }, html`${viaProvider}${form}`);
  };

  /**
   * Both factors passed (or the provider vouched): a fresh session, the old one (if any) ended. After the provider's
   * redirect the browser is still in a navigation another site began, in which it does not send the SameSite=Strict
   * session cookie: the page takes the next step itself (a refresh from this site) instead of a redirect.
   */
  const signIn = async (
    req: FastifyRequest,
    reply: FastifyReply,
    who: { user: string; tenant: string | undefined; organisationOnly?: boolean },
    next: string | undefined,
    how: string,
    idToken?: string,
  ) => {
    const { user, tenant } = who;
    // an organisation's administrator of a tenant that is gone (or not made yet) has nothing to manage
    if (tenant !== undefined && !(await deps.tenants.get(tenant))) {
      req.log.warn({ user, tenant, how }, "admin login refused: the administrator's tenant does not exist");
      return sendPage(
        reply,
        {
          title: 'Geen toegang',
          status: 403,
          errors: [`Uw organisatie (${tenant}) bestaat niet op dit platform. Vraag de beheerder van het platform.`],
        },
        html`<p><a href="${UI}/login">Terug naar inloggen</a></p>`,
      );
    }
    await sessions.purge();
    await sessions.destroy(parseCookies(req.headers.cookie)[SESSION_COOKIE]);
    const role = roleOf(tenant, deps.tenants.defaultTenant, who.organisationOnly);
    const session = await sessions.create(user, role, idToken);
    req.log.info({ user, how, tenant: role.tenant, platform: role.platform }, 'administrator logged in');
    reply.header('Set-Cookie', [
      sessionCookie(session, secure, deps.config.ADMIN_SESSION_MAX_HOURS),
      clear(LOGIN_COOKIE, `${UI}/login`),
      clear(PENDING_COOKIE, `${UI}/login`),
    ]);
    const to = safeNext(next) ?? `${UI}/`;
    if (!idToken) return redirect(reply, to);
    reply.header('Refresh', `0; url=${to}`);
    return sendPage(reply, { title: 'Ingelogd' }, html`<p>U bent ingelogd. <a href="${to}">Verder</a></p>`);
  };

  scope.get<{ Querystring: { next?: string; uit?: string; verlopen?: string } }>('/login', { config: { adminPublic: true } }, async (req, reply) => {
    if (await sessions.get(parseCookies(req.headers.cookie)[SESSION_COOKIE])) return redirect(reply, `${UI}/`);
    const q = req.query;
    const notice = q.uit ? 'U bent uitgelogd.' : q.verlopen ? 'Uw sessie is verlopen; log opnieuw in.' : undefined;
    return loginPage(reply, req, { notice, next: safeNext(q.next) });
  });

  scope.post('/login', { config: { adminPublic: true } }, async (req, reply) => {
    if (!local) return loginPage(reply, req, { status: 403, errors: ['Inloggen met naam en wachtwoord staat uit (ADMIN_LOCAL_LOGIN=false).'] });
    const form = formOf(req.body);
    const expected = parseCookies(req.headers.cookie)[LOGIN_COOKIE];
    if (!expected || !csrfMatches(field(form, '_login'), expected) || l.crossSite(req)) {
      return loginPage(reply, req, { status: 403, errors: ['Het inlogformulier is verlopen of komt niet van deze site. Probeer het opnieuw.'] });
    }
    const result = await users.login(field(form, 'naam'), typeof form.wachtwoord === 'string' ? form.wachtwoord : '');
    if (!result.ok) {
      req.log.warn({ reason: result.reason }, 'admin login refused');
      const error =
        result.reason === 'blocked' ? 'Te veel mislukte pogingen: probeer het over enkele minuten opnieuw.' : 'Onjuiste naam of wachtwoord.';
      return loginPage(reply, req, { status: result.reason === 'blocked' ? 429 : 401, errors: [error], next: safeNext(field(form, 'next')) });
    }
    const token = await pending.create(result.user, safeNext(field(form, 'next')));
    reply.header('Set-Cookie', serializeCookie(PENDING_COOKIE, token, { path: `${UI}/login`, maxAgeSeconds: PENDING_MINUTES * 60, secure }));
    return redirect(reply, `${UI}/login/tweede-factor`);
  });

  const codePage = (reply: FastifyReply, login: PendingLogin, opts: { errors?: string[]; status?: number } = {}) =>
    sendPage(
      reply,
      { title: 'Tweede factor', ...opts },
      html`<form class="login" method="post" action="${UI}/login/tweede-factor">
  <input type="hidden" name="_stap" value="${login.token}">
  <label for="code">Code uit uw authenticator-app</label>
  <input id="code" name="code" type="text" inputmode="numeric" autocomplete="one-time-code" required autofocus maxlength="12">
  <div class="actions"><button type="submit">Inloggen</button></div>
</form>
<p class="muted">Telefoon kwijt? Vul een van uw herstelcodes in (elke code werkt één keer). Geen herstelcode meer: een andere
beheerder stelt uw tweede factor opnieuw in (Beheerders), of <code>npm run admin -- reset-factor &lt;naam&gt;</code>.</p>`,
    );

  const enrolPage = async (reply: FastifyReply, login: PendingLogin, enrolment: Enrolment, opts: { errors?: string[]; status?: number } = {}) => {
    const qr = await enrolmentQr(enrolment, login.user);
    return sendPage(
      reply,
      { title: 'Tweede factor instellen', ...opts },
      html`<p>Beheerders loggen in met hun wachtwoord en een code uit een authenticator-app (TOTP). Stel die nu in:</p>
<ol class="steps">
  <li><p>Scan deze QR-code met een authenticator-app (zoals FreeOTP, Aegis, Google of Microsoft Authenticator).</p>
    <img class="qr" src="${qr.image}" alt="QR-code van de tweede factor" width="220" height="220">
    <p>Of voer de sleutel met de hand in: <code id="totp-secret">${enrolment.secret}</code></p></li>
  <li><p>Bewaar deze herstelcodes op een veilige plek. Elke code werkt één keer, als u uw app niet bij de hand hebt; ze worden
    hierna niet meer getoond.</p>
    <ul class="recovery-codes">${enrolment.codes.map((c) => html`<li><code>${c}</code></li>`)}</ul></li>
  <li><p>Vul ter bevestiging de code in die de app nu toont.</p></li>
</ol>
<form class="login" method="post" action="${UI}/login/tweede-factor">
  <input type="hidden" name="_stap" value="${login.token}">
  <label for="code">Code uit de app</label>
  <input id="code" name="code" type="text" inputmode="numeric" autocomplete="one-time-code" required autofocus maxlength="6">
  <div class="actions"><button type="submit">Bevestigen en inloggen</button></div>
</form>`,
    );
  };

  const pendingOf = async (req: FastifyRequest) => pending.get(parseCookies(req.headers.cookie)[PENDING_COOKIE]);

  scope.get('/login/tweede-factor', { config: { adminPublic: true } }, async (req, reply) => {
    const login = await pendingOf(req);
    const user = login && (await users.get(login.user));
    if (!login || !user) return redirect(reply, `${UI}/login?verlopen=1`);
    return user.totpSecret ? codePage(reply, login) : enrolPage(reply, login, await pending.enrolmentOf(login));
  });

  scope.post('/login/tweede-factor', { config: { adminPublic: true } }, async (req, reply) => {
    const login = await pendingOf(req);
    const user = login && (await users.get(login.user));
    if (!login || !user) return redirect(reply, `${UI}/login?verlopen=1`);
    const form = formOf(req.body);
    if (!csrfMatches(field(form, '_stap'), login.token) || l.crossSite(req)) {
      return loginPage(reply, req, { status: 403, errors: ['Het formulier is verlopen of komt niet van deze site. Log opnieuw in.'] });
    }
    const code = field(form, 'code').trim();
    const now = new Date();
    if (!user.totpSecret) {
      const enrolment = await pending.enrolmentOf(login);
      const step = stepOfCode(enrolment.secret, code, now);
      if (step !== undefined) {
        const hashes = enrolment.codes.map((c) => recoveryHash(c)!);
        if (await users.setSecondFactor(user._id, sealSecret(deps.pii, 'adminTotp', enrolment.secret), step, hashes)) {
          return passed(req, reply, login, 'tweede factor ingesteld');
        }
      }
      return wrongCode(req, reply, login, user, (left) => enrolPage(reply, login, enrolment, { status: 401, errors: [wrongText(left)] }));
    }
    const secret = openSecret(deps.pii, 'adminTotp', user.totpSecret);
    const step = stepOfCode(secret, code, now);
    let how: string | undefined;
    if (step !== undefined && (await users.useTotpStep(user._id, step))) how = 'totp';
    else {
      const hash = step === undefined ? recoveryHash(code) : undefined;
      if (hash && (await users.useRecoveryCode(user._id, hash))) how = 'herstelcode';
    }
    if (!how) return wrongCode(req, reply, login, user, (left) => codePage(reply, login, { status: 401, errors: [wrongText(left)] }));
    if (how === 'herstelcode') req.log.warn({ user: user._id, left: (user.recoveryCodes?.length ?? 1) - 1 }, 'administrator used a recovery code');
    return passed(req, reply, login, how);
  });

  /** The second factor passed: the pending login is done, the account's count of failures starts again. */
  const passed = async (req: FastifyRequest, reply: FastifyReply, login: PendingLogin, how: string) => {
    await pending.finish(login.token);
    await users.succeeded(login.user);
    const account = await users.get(login.user);
    return signIn(req, reply, { user: login.user, tenant: account?.tenant }, login.next, how);
  };

  const wrongText = (left: number) => `Deze code klopt niet (of is al gebruikt). Nog ${left} ${left === 1 ? 'poging' : 'pogingen'}.`;
  const wrongCode = async (req: FastifyRequest, reply: FastifyReply, login: PendingLogin, user: AdminUser, again: (left: number) => unknown) => {
    await users.failed(user);
    const left = await pending.wrong(login);
    req.log.warn({ user: user._id, left }, 'admin second factor refused');
    if (left > 0) return again(left);
    reply.header('Set-Cookie', clear(PENDING_COOKIE, `${UI}/login`));
    return loginPage(reply, req, { status: 401, errors: [`${MAX_CODE_TRIES} keer een verkeerde code: log opnieuw in.`] });
  };

  const oidcOff = (reply: FastifyReply) =>
    sendPage(reply, { title: 'Niet gevonden', status: 404 }, html`<p>Inloggen via een identity provider is hier niet ingesteld.</p>`);

  scope.get<{ Querystring: { next?: string } }>('/oidc/login', { config: { adminPublic: true } }, async (req, reply) => {
    if (!oidc.enabled) return oidcOff(reply);
    let begun: { url: string; token: string };
    try {
      begun = await oidc.begin(safeNext(req.query.next));
    } catch (err) {
      req.log.error({ err, issuer: deps.config.ADMIN_OIDC_ISSUER }, 'identity provider not reachable for an admin login');
      return sendPage(
        reply,
        { title: 'Inloggen', status: 503, errors: ['De identity provider is nu niet bereikbaar. Probeer het over enkele minuten opnieuw.'] },
        html`<p><a href="${UI}/login">Terug naar inloggen</a></p>`,
      );
    }
    reply.header('Set-Cookie', serializeCookie(OIDC_COOKIE, begun.token, { path: `${UI}/oidc`, maxAgeSeconds: 600, secure, sameSite: 'Lax' }));
    return reply.code(302).header('Location', begun.url).header('Cache-Control', 'no-store').send();
  });

  scope.get<{ Querystring: Record<string, string | string[]> }>('/oidc/callback', { config: { adminPublic: true } }, async (req, reply) => {
    if (!oidc.enabled) return oidcOff(reply);
    const query: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.query)) query[k] = Array.isArray(v) ? String(v[0]) : String(v);
    const result = await oidc.complete(parseCookies(req.headers.cookie)[OIDC_COOKIE], query);
    reply.header('Set-Cookie', serializeCookie(OIDC_COOKIE, '', { path: `${UI}/oidc`, maxAgeSeconds: 0, secure, sameSite: 'Lax' }));
    if (!result.ok) {
      req.log.warn(result.log, 'admin login through the identity provider refused');
      return sendPage(
        reply,
        { title: result.status === 403 ? 'Geen toegang' : 'Inloggen mislukt', status: result.status, errors: [result.reason] },
        html`<p><a href="${UI}/login">Terug naar inloggen</a></p>`,
      );
    }
    return signIn(req, reply, result, result.next, 'identity provider', result.idToken);
  });

  scope.post('/logout', async (req, reply) => {
    const session = sessionOf(req);
    await sessions.destroy(session.token);
    req.log.info({ user: session.user }, 'administrator logged out');
    reply.header('Set-Cookie', serializeCookie(SESSION_COOKIE, '', { path: UI, maxAgeSeconds: 0, secure }));
    const after = `${deps.config.PUBLIC_BASE_URL}${UI}/login?uit=1`;
    const atProvider = session.idToken && oidc.enabled ? await oidc.endSessionUrl(session.idToken, after) : undefined;
    return redirect(reply, atProvider ?? `${UI}/login?uit=1`);
  });
}
