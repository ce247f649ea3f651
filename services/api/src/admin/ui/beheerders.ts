import type { FastifyInstance } from 'fastify';
import { html } from '../../common/http/html';
import { formatTime } from './audit';
import { sessionOf, type AdminUi } from './context';
import { csrfField, redirect, sendPage, UI } from './layout';
import type { AdminSessions } from './sessions';
import { USER_NAME, type AdminUsers } from './users';

/**
 * The administrators with a local name and password: whether each has a second factor and how many recovery codes
 * are left, and resetting another's second factor (a lost phone): their sessions end and their next login sets up a
 * new one. Administrators from the identity provider are not listed: the provider keeps them.
 */
export function registerBeheerderScreens(scope: FastifyInstance, _ui: AdminUi, users: AdminUsers, sessions: AdminSessions): void {
  scope.get<{ Querystring: { gereset?: string } }>('/beheerders', async (req, reply) => {
    const session = sessionOf(req);
    // an organisation's administrators see their own organisation's; platform administrators everyone
    const all = await users.list(session.platform ? undefined : session.tenant);
    const reset = req.query.gereset && USER_NAME.test(req.query.gereset) ? req.query.gereset : undefined;
    const rows = all.map(
      (u) => html`<tr>
  <td>${u.name}</td><td>${u.tenant ?? html`<span class="muted">platform</span>`}</td><td>${formatTime(u.createdAt)}</td><td>${formatTime(u.passwordChangedAt)}</td>
  <td>${u.secondFactor ? html`ingesteld, ${u.recoveryCodesLeft} herstelcodes over` : html`<span class="muted">nog niet (bij de volgende login)</span>`}</td>
  <td>${
    u.secondFactor && u.name !== session.user
      ? html`<form method="post" action="${UI}/beheerders/${encodeURIComponent(u.name)}/tweede-factor" data-confirm="De tweede factor van ${u.name} opnieuw laten instellen? Zijn of haar sessies eindigen.">${csrfField(session.csrf)}<button type="submit" class="secondary">Tweede factor opnieuw instellen</button></form>`
      : ''
  }</td>
</tr>`,
    );
    return sendPage(
      reply,
      {
        title: 'Beheerders',
        user: session.user,
        csrf: session.csrf,
        nav: 'beheerders',
        notice: reset ? `De tweede factor van ${reset} is verwijderd; bij de volgende login stelt die een nieuwe in.` : undefined,
      },
      html`<p>Beheerders met een naam en wachtwoord (toevoegen en verwijderen: <code>npm run admin -- add|remove &lt;naam&gt; [--tenant &lt;rsin&gt;]</code>; met een organisatie beheert iemand alleen die). Wie via de identity provider inlogt, staat hier niet.</p>
<table><thead><tr><th>Naam</th><th>Organisatie</th><th>Sinds</th><th>Wachtwoord gewijzigd</th><th>Tweede factor</th><th></th></tr></thead>
<tbody>${rows}</tbody></table>`,
    );
  });

  scope.post<{ Params: { naam: string } }>('/beheerders/:naam/tweede-factor', async (req, reply) => {
    const session = sessionOf(req);
    const name = req.params.naam;
    const account = await users.get(name);
    // another organisation's administrator does not exist for an organisation's administrator
    if (name === session.user || !account || (!session.platform && account.tenant !== session.tenant)) {
      return sendPage(
        reply,
        {
          title: 'Beheerders',
          user: session.user,
          csrf: session.csrf,
          nav: 'beheerders',
          status: name === session.user ? 400 : 404,
          errors: [name === session.user ? 'Uw eigen tweede factor stelt een andere beheerder opnieuw in.' : `Er is geen beheerder ${name}.`],
        },
        html`<p><a href="${UI}/beheerders">Naar de beheerders</a></p>`,
      );
    }
    await users.resetSecondFactor(name);
    await sessions.destroyAllOf(name);
    req.log.warn({ user: session.user, of: name }, 'second factor of an administrator reset on the admin screen');
    return redirect(reply, `${UI}/beheerders?gereset=${encodeURIComponent(name)}`);
  });
}
