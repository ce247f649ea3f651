import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { callAdminApi, problemMessages, sessionOf, type AdminUi } from './context';
import { field, formOf, lines } from './forms';
import { html } from '../../common/http/html';
import { csrfField, redirect, sendPage, UI } from './layout';

const EXCLUSIONS = '/admin/api/v1/audit/exclusions';

interface Exclusions {
  clientIds: string[];
  bron: string;
  updatedAt: string | null;
  updatedBy: string | null;
  /** An organisation's own list (for the reads within it): its RSIN, and the platform's list beside it. */
  tenant?: string;
  platform?: Exclusions;
}

const NOTICES: Record<string, string> = {
  opgeslagen: 'De uitzonderingen zijn opgeslagen; elke instantie past ze toe.',
  hersteld: 'De lijst uit AUDIT_EXCLUDE_CLIENT_IDS geldt weer.',
  verwijderd: 'De lijst van deze organisatie is verwijderd.',
};

/**
 * The audit exclusions: client ids (exact or with `*`) whose reads leave no audit entry. Read and changed through
 * the audit admin endpoints (admin/audit.ts), so the screen follows the same rules: in the default tenant a platform
 * administrator manages the platform's list (for every organisation), in any other the organisation's own list (for
 * the reads within it), with the platform's shown beside it.
 */
export function registerAuditScreens(scope: FastifyInstance, ui: AdminUi): void {
  const show = async (
    req: FastifyRequest,
    reply: FastifyReply,
    extra: { errors?: string[]; text?: string; notice?: string; status?: number } = {},
  ) => {
    const session = sessionOf(req);
    const answer = await callAdminApi(ui, req, 'GET', EXCLUSIONS);
    if (answer.status !== 200)
      return sendPage(
        reply,
        { title: 'Audit', user: session.user, csrf: session.csrf, nav: 'audit', errors: problemMessages(answer), status: 502 },
        html``,
      );
    const current = answer.body as Exclusions;
    if (current.platform) return showOwn(req, reply, current, current.platform, extra);
    const fromEnv = current.bron !== 'beheer';
    const text = extra.text ?? current.clientIds.join('\n');
    return sendPage(
      reply,
      exclusionsPage(session, extra),
      html`<p>Het lezen van zaken, documenten en besluiten komt in de audit trail, behalve door de client ids hieronder. Een regel is een client id, exact of met <code>*</code> als joker (<code>batch.*</code>, <code>*-sync</code>); hoofdletters tellen niet. Schrijven komt altijd in de audit trail.</p>
<p id="bron">${
        fromEnv
          ? html`Nu geldt de lijst uit de omgeving (<code>AUDIT_EXCLUDE_CLIENT_IDS</code>): nog niet door een beheerder vastgelegd.`
          : html`Vastgelegd door <strong>${current.updatedBy ?? ''}</strong> op ${formatTime(current.updatedAt)}; dit vervangt <code>AUDIT_EXCLUDE_CLIENT_IDS</code>.`
      }</p>
<form method="post" action="${UI}/audit">${csrfField(session.csrf)}
  <label for="clientIds">Uitgezonderde client ids (${current.clientIds.length}), één per regel</label>
  <textarea id="clientIds" name="clientIds" spellcheck="false">${text}</textarea>
  <div class="actions"><button type="submit">Opslaan</button></div>
</form>
${
  fromEnv
    ? ''
    : html`<form method="post" action="${UI}/audit/herstel" data-confirm="De vastgelegde lijst verwijderen en AUDIT_EXCLUDE_CLIENT_IDS weer laten gelden?">${csrfField(session.csrf)}
  <button type="submit" class="secondary">Terug naar AUDIT_EXCLUDE_CLIENT_IDS</button></form>`
}`,
    );
  };

  /** The frame of the exclusions page, the platform's list or an organisation's own. */
  const exclusionsPage = (session: ReturnType<typeof sessionOf>, extra: { errors?: string[]; notice?: string; status?: number }) => ({
    title: 'Audit: uitzonderingen op het lezen',
    user: session.user,
    csrf: session.csrf,
    nav: 'audit' as const,
    errors: extra.errors,
    notice: extra.notice,
    status: extra.status,
  });

  /** An organisation's own list, with the platform's beside it (read-only). */
  const showOwn = (
    req: FastifyRequest,
    reply: FastifyReply,
    current: Exclusions,
    platform: Exclusions,
    extra: { errors?: string[]; text?: string; notice?: string; status?: number },
  ) => {
    const session = sessionOf(req);
    const text = extra.text ?? current.clientIds.join('\n');
    const stored = current.bron === 'beheer';
    return sendPage(
      reply,
      exclusionsPage(session, extra),
      html`<p>Het lezen van zaken, documenten en besluiten binnen organisatie <strong>${current.tenant ?? ''}</strong> komt in de audit trail, behalve door de client ids hieronder. Een regel is een client id, exact of met <code>*</code> als joker (<code>batch.*</code>, <code>*-sync</code>); hoofdletters tellen niet. Schrijven komt altijd in de audit trail.</p>
<p id="bron">${
        stored
          ? html`Vastgelegd door <strong>${current.updatedBy ?? ''}</strong> op ${formatTime(current.updatedAt)}.`
          : html`Deze organisatie heeft nog geen eigen lijst vastgelegd.`
      }</p>
<p id="platform">Daarnaast geldt de lijst van het platform (alleen door beheerders van het platform te wijzigen): ${
        platform.clientIds.length ? html`<code>${platform.clientIds.join(', ')}</code>` : html`geen`
      }.</p>
<form method="post" action="${UI}/audit">${csrfField(session.csrf)}
  <label for="clientIds">Uitgezonderde client ids (${current.clientIds.length}), één per regel</label>
  <textarea id="clientIds" name="clientIds" spellcheck="false">${text}</textarea>
  <div class="actions"><button type="submit">Opslaan</button></div>
</form>
${
  stored
    ? html`<form method="post" action="${UI}/audit/herstel" data-confirm="De lijst van deze organisatie verwijderen?">${csrfField(session.csrf)}
  <button type="submit" class="secondary">Lijst verwijderen</button></form>`
    : ''
}`,
    );
  };

  scope.get<{ Querystring: { gedaan?: string } }>('/audit', async (req, reply) => show(req, reply, { notice: NOTICES[req.query.gedaan ?? ''] }));

  scope.post('/audit', async (req, reply) => {
    const text = field(formOf(req.body), 'clientIds');
    const clientIds = lines(text);
    const answer = await callAdminApi(ui, req, 'PUT', EXCLUSIONS, { clientIds });
    if (answer.status !== 200) {
      const errors = problemMessages(answer, (name) => {
        const i = /^clientIds\.(\d+)$/.exec(name);
        return i ? `Regel ${Number(i[1]) + 1} (${clientIds[Number(i[1])] ?? ''})` : name;
      });
      return show(req, reply, { errors, text, status: answer.status });
    }
    req.log.info({ user: sessionOf(req).user, exclusions: clientIds.length }, 'audit exclusions changed on the admin screen');
    return redirect(reply, `${UI}/audit?gedaan=opgeslagen`);
  });

  scope.post('/audit/herstel', async (req, reply) => {
    const own = (await callAdminApi(ui, req, 'GET', EXCLUSIONS)).body as Partial<Exclusions> | undefined;
    const answer = await callAdminApi(ui, req, 'DELETE', EXCLUSIONS);
    if (answer.status !== 204) return show(req, reply, { errors: problemMessages(answer), status: answer.status });
    return redirect(reply, `${UI}/audit?gedaan=${own?.platform ? 'verwijderd' : 'hersteld'}`);
  });
}

export function formatTime(iso: string | Date | null | undefined): string {
  if (!iso) return '';
  const d = iso instanceof Date ? iso : new Date(iso);
  return Number.isNaN(d.getTime())
    ? String(iso)
    : d
        .toISOString()
        .replace('T', ' ')
        .replace(/\.\d+Z$/, ' UTC');
}
