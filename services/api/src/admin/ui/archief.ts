import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { html } from '../../common/http/html';
import { formatTime } from './audit';
import { callAdminApi, problemMessages, sessionOf, type AdminUi } from './context';
import { field, formOf } from './forms';
import { apiPager, csrfField, redirect, sendPage, UI, type PageOf } from './layout';

const WERKLIJST_API = '/admin/api/v1/archief/werklijst';
const BEWARING_API = '/admin/api/v1/archief/bewaring';
const zaakApi = (uuid: string) => `/admin/api/v1/zaken/${uuid}/juridische-bewaring`;
const BASE = `${UI}/archief`;
const UUID_IN = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;

interface Werkpunt {
  url: string;
  identificatie: string;
  zaaktype: string;
  einddatum: string | null;
  archiefnominatie: string | null;
  archiefactiedatum: string | null;
  resultaat: string | null;
  resultaattype: string | null;
  reden: string;
  toelichting: string;
  opBewaring: boolean;
}

interface Bewaring {
  zaak: string;
  identificatie: string;
  einddatum: string | null;
  reden: string;
  gezetDoor: string;
  gezetDoorWeergave: string;
  gezetOp: string | null;
}

const NOTICES: Record<string, string> = {
  gezet: 'De zaak staat onder juridische bewaring: geen vernietigingslijst neemt haar op tot de bewaring is opgeheven.',
  opgeheven: 'De juridische bewaring is opgeheven.',
};

const REDEN: Record<string, string> = {
  geen_archiefactiedatum: 'geen archiefactiedatum',
  geen_resultaat: 'geen resultaat',
  geen_archiefnominatie: 'geen archiefnominatie',
};

/** The zaak's UUID in what the administrator typed: a UUID or the zaak's URL. */
const uuidIn = (text: string): string | undefined => UUID_IN.exec(text)?.[0].toLowerCase();

/**
 * The archivist's screen: the worklist of closed zaken whose archiving is incomplete (the dates are set with the Zaken
 * API's PATCH on the zaak), the zaken on legal hold, and a form to put a zaak on hold with its reason or lift a hold.
 * Everything goes through the admin endpoints (admin/archief.ts).
 */
export function registerArchiefScreens(scope: FastifyInstance, ui: AdminUi): void {
  const show = async (
    req: FastifyRequest,
    reply: FastifyReply,
    extra: { errors?: string[]; zaak?: string; reden?: string; status?: number } = {},
  ) => {
    const session = sessionOf(req);
    const query = (req.method === 'GET' ? req.query : {}) as { page?: string; cursor?: string; gedaan?: string };
    const q = new URLSearchParams(Object.entries({ page: query.page, cursor: query.cursor }).filter((e): e is [string, string] => !!e[1]));
    const [werk, bewaring] = await Promise.all([
      callAdminApi(ui, req, 'GET', `${WERKLIJST_API}${q.size ? `?${q}` : ''}`),
      callAdminApi(ui, req, 'GET', BEWARING_API),
    ]);
    const page = { title: 'Archief', user: session.user, csrf: session.csrf, nav: 'archief' as const };
    if (werk.status !== 200 || bewaring.status !== 200)
      return sendPage(reply, { ...page, errors: problemMessages(werk.status !== 200 ? werk : bewaring), status: 502 }, html``);
    const lijst = werk.body as PageOf<Werkpunt>;
    const holds = bewaring.body as PageOf<Bewaring>;
    const werkRows = lijst.results.map(
      (w) => html`<tr>
  <td>${w.identificatie}${w.opBewaring ? html` <span class="pill bad">bewaring</span>` : ''}<div class="muted"><code>${w.url}</code></div></td>
  <td><code>${w.zaaktype}</code></td>
  <td>${w.einddatum ?? ''}</td>
  <td>${w.archiefnominatie ?? html`<span class="muted">geen</span>`}</td>
  <td>${w.archiefactiedatum ?? html`<span class="muted">geen</span>`}</td>
  <td data-reden="${w.reden}"><strong>${REDEN[w.reden] ?? w.reden}</strong><div class="muted">${w.toelichting}</div></td>
</tr>`,
    );
    const holdRows = holds.results.map(
      (b) => html`<tr data-zaak="${b.zaak}">
  <td>${b.identificatie}<div class="muted"><code>${b.zaak}</code></div></td>
  <td class="reden">${b.reden}</td>
  <td>${b.gezetDoorWeergave || b.gezetDoor}<div class="muted">${formatTime(b.gezetOp)}</div></td>
  <td><form method="post" action="${BASE}/bewaring/opheffen" data-confirm="De juridische bewaring van ${b.identificatie} opheffen?">${csrfField(session.csrf)}<input type="hidden" name="zaak" value="${b.zaak}"><button type="submit" class="secondary">Opheffen</button></form></td>
</tr>`,
    );
    return sendPage(
      reply,
      { ...page, notice: NOTICES[query.gedaan ?? ''], errors: extra.errors, status: extra.status },
      html`<h2>Juridische bewaring</h2>
<p>Een zaak onder juridische bewaring komt op geen vernietigingslijst tot de bewaring is opgeheven. Instellen en opheffen komen in de audit trail van de zaak.</p>
<form method="post" action="${BASE}/bewaring" id="bewaring-form">${csrfField(session.csrf)}
  <label for="zaak">Zaak (URL of UUID)</label><input id="zaak" name="zaak" value="${extra.zaak ?? ''}" size="70" required spellcheck="false">
  <label for="reden">Reden</label><textarea id="reden" name="reden" maxlength="1000" required>${extra.reden ?? ''}</textarea>
  <div class="actions"><button type="submit">Bewaring instellen</button></div>
</form>
<table id="bewaring">
<thead><tr><th>Zaak</th><th>Reden</th><th>Ingesteld</th><th></th></tr></thead>
<tbody>${holdRows.length ? holdRows : html`<tr><td colspan="4" class="muted">Geen zaken onder juridische bewaring.</td></tr>`}</tbody>
</table>
${holds.next ? html`<p class="muted">De ${holds.results.length} laatst ingestelde van ${holds.count}; alle via <code>${BEWARING_API}</code>.</p>` : ''}
<h2>Werklijst</h2>
<p>Afgesloten zaken waarvan de archivering niet compleet is: archiefnominatie <code>vernietigen</code> zonder archiefactiedatum, of geen archiefnominatie. Zet de gegevens met <code>PATCH</code> op de zaak in de Zaken API (<code>archiefnominatie</code>, <code>archiefactiedatum</code>); de zaak verdwijnt dan van de lijst.</p>
<table id="werklijst">
<thead><tr><th>Zaak</th><th>Zaaktype</th><th>Einddatum</th><th>Archiefnominatie</th><th>Archiefactiedatum</th><th>Waarom</th></tr></thead>
<tbody>${werkRows.length ? werkRows : html`<tr><td colspan="6" class="muted">Geen zaken op de werklijst.</td></tr>`}</tbody>
</table>
${apiPager(BASE, lijst, query.page)}`,
    );
  };

  scope.get('/archief', async (req, reply) => show(req, reply));

  scope.post('/archief/bewaring', async (req, reply) => {
    const form = formOf(req.body);
    const zaak = field(form, 'zaak');
    const reden = field(form, 'reden');
    const uuid = uuidIn(zaak);
    const refused = (errors: string[], status: number) => show(req, reply, { errors, zaak, reden, status });
    if (!uuid) return refused(['Zaak: geef de URL of de UUID van de zaak.'], 400);
    const answer = await callAdminApi(ui, req, 'PUT', zaakApi(uuid), { reden });
    if (answer.status !== 200)
      return refused(
        problemMessages(answer, (n) => (n === 'reden' ? 'Reden' : n)),
        answer.status,
      );
    req.log.info({ user: sessionOf(req).user, zaak: uuid }, 'legal hold set on the admin screen');
    return redirect(reply, `${BASE}?gedaan=gezet`);
  });

  scope.post('/archief/bewaring/opheffen', async (req, reply) => {
    const uuid = uuidIn(field(formOf(req.body), 'zaak'));
    const answer = uuid ? await callAdminApi(ui, req, 'DELETE', zaakApi(uuid)) : { status: 404, body: { detail: 'Geen zaak gegeven.' } };
    if (answer.status !== 204) return show(req, reply, { errors: problemMessages(answer), status: answer.status });
    req.log.info({ user: sessionOf(req).user, zaak: uuid }, 'legal hold lifted on the admin screen');
    return redirect(reply, `${BASE}?gedaan=opgeheven`);
  });
}
