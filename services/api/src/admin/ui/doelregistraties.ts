import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { html } from '../../common/http/html';
import { callAdminApi, problemMessages, sessionOf, type AdminUi } from './context';
import { field, formOf, lines, type Form } from './forms';
import { csrfField, redirect, sendPage, UI } from './layout';

const API = '/admin/api/v1/doelregistraties';
const BASE = `${UI}/overdrachten/doelregistraties`;
const EXTERN = ['zakenApi', 'catalogiApi', 'documentenApi', 'besluitenApi', 'clientId'] as const;
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** A doelregistratie as the form edits it (`zaaktypen` one mapping a line: `bron; doel; afsluitResultaat`). */
interface Draft {
  naam: string;
  route: string;
  rsin: string;
  /** Route intern: the tenant on this platform the zaak goes to (empty: the same one). */
  tenant: string;
  catalogus: string;
  bron: string;
  zaaktypen: string;
  extern: Record<(typeof EXTERN)[number], string>;
  secretOpgeslagen?: boolean;
}

const blank = (): Draft => ({
  naam: '',
  route: 'intern',
  rsin: '',
  tenant: '',
  catalogus: '',
  bron: 'openlaten',
  zaaktypen: '',
  extern: { zakenApi: '', catalogiApi: '', documentenApi: '', besluitenApi: '', clientId: '' },
});

/** The form's draft of a doelregistratie as the admin API answers it. */
function draftOf(d: Record<string, unknown>): Draft {
  const text = (v: unknown) => (v === undefined || v === null ? '' : String(v));
  return {
    naam: text(d.naam),
    route: text(d.route),
    rsin: text(d.rsin),
    tenant: text(d.tenant),
    catalogus: text(d.catalogus),
    bron: text(d.bron),
    zaaktypen: ((d.zaaktypen ?? []) as { bron: string; doel: string; afsluitResultaat?: string }[])
      .map((k) => [k.bron, k.doel, k.afsluitResultaat].filter(Boolean).join('; '))
      .join('\n'),
    extern: Object.fromEntries(EXTERN.map((f) => [f, text(d[f])])) as Draft['extern'],
    secretOpgeslagen: d.secretOpgeslagen === true,
  };
}

function readDraft(form: Form): Draft {
  return {
    naam: field(form, 'naam'),
    route: field(form, 'route'),
    rsin: field(form, 'rsin'),
    tenant: field(form, 'tenant'),
    catalogus: field(form, 'catalogus'),
    bron: field(form, 'bron'),
    zaaktypen: typeof form.zaaktypen === 'string' ? form.zaaktypen : '',
    extern: Object.fromEntries(EXTERN.map((f) => [f, field(form, f)])) as Draft['extern'],
  };
}

/** The body the admin endpoint takes; a secret left empty keeps the stored one. */
function toBody(d: Draft, secret: string): Record<string, unknown> {
  return {
    naam: d.naam,
    route: d.route,
    rsin: d.rsin,
    ...(d.route === 'intern' && d.tenant ? { tenant: d.tenant } : {}),
    catalogus: d.catalogus,
    bron: d.bron,
    zaaktypen: lines(d.zaaktypen).map((l) => {
      const [bron = '', doel = '', afsluitResultaat] = l.split(';').map((s) => s.trim());
      return { bron, doel, ...(afsluitResultaat ? { afsluitResultaat } : {}) };
    }),
    ...(d.route === 'extern'
      ? { ...Object.fromEntries(EXTERN.map((f) => [f, d.extern[f]]).filter(([, v]) => v)), ...(secret ? { secret } : {}) }
      : {}),
  };
}

/**
 * The doelregistraties on the Overdrachten screen: create, change and delete, through the doelregistraties admin
 * endpoint (its rules and refusals). A stored secret is never shown; leaving the field empty keeps it.
 */
export function registerDoelregistratieScreens(scope: FastifyInstance, ui: AdminUi): void {
  const editor = (req: FastifyRequest, reply: FastifyReply, d: Draft, opts: { bestaand?: boolean; errors?: string[]; status?: number } = {}) => {
    const session = sessionOf(req);
    const action = opts.bestaand ? `${BASE}/${encodeURIComponent(d.naam)}` : `${BASE}/nieuw`;
    const option = (name: string, value: string, label: string) =>
      html`<option value="${value}"${d[name as 'route'] === value ? html` selected` : ''}>${label}</option>`;
    return sendPage(
      reply,
      {
        title: opts.bestaand ? `Doelregistratie ${d.naam}` : 'Nieuwe doelregistratie',
        user: session.user,
        csrf: session.csrf,
        nav: 'overdrachten',
        errors: opts.errors,
        status: opts.status,
      },
      html`<form method="post" action="${action}" id="doelregistratie">${csrfField(session.csrf)}
<label for="naam">Naam</label><input id="naam" name="naam" value="${d.naam}" required${opts.bestaand ? html` readonly` : ''}>
<label for="route">Route</label><select id="route" name="route">${option('route', 'intern', 'intern: een organisatie op dit platform')}${option('route', 'extern', 'extern: een ander ZGW-systeem')}</select>
<label for="rsin">Doelorganisatie (RSIN)</label><input id="rsin" name="rsin" value="${d.rsin}" required pattern="\\d{9}">
<label for="tenant">Route intern: de organisatie (tenant, RSIN) op dit platform waar de zaak heen gaat; leeg: deze organisatie</label><input id="tenant" name="tenant" value="${d.tenant}" pattern="\\d{9}">
<label for="catalogus">Catalogus in de doelregistratie (URL)</label><input id="catalogus" name="catalogus" value="${d.catalogus}" required>
<label for="zaaktypen">Zaaktypen: per regel <code>bron; doel; afsluitResultaat</code> (identificaties; het resultaat alleen bij afsluiten)</label>
<textarea id="zaaktypen" name="zaaktypen" rows="5">${d.zaaktypen}</textarea>
<label for="bron">De bronzaak na de overdracht</label><select id="bron" name="bron">${option('bron', 'openlaten', 'openlaten')}${option('bron', 'afsluiten', 'afsluiten')}</select>
<fieldset><legend>Alleen bij route extern</legend>
${EXTERN.map((f) => html`<label for="${f}">${f}</label><input id="${f}" name="${f}" value="${d.extern[f]}">`)}
<label for="secret">Secret${d.secretOpgeslagen ? ' (opgeslagen; leeg laten om het te houden)' : ''}</label><input id="secret" name="secret" type="password" autocomplete="new-password">
</fieldset>
<div class="actions"><button type="submit">Opslaan</button> <a href="${UI}/overdrachten">Annuleren</a></div>
</form>
${opts.bestaand ? html`<form method="post" action="${BASE}/${encodeURIComponent(d.naam)}/verwijderen" class="inline" data-confirm="Deze doelregistratie verwijderen?">${csrfField(session.csrf)}<button type="submit" class="danger">Verwijderen</button></form>` : ''}`,
    );
  };
  const save = async (req: FastifyRequest, reply: FastifyReply, bestaand: boolean) => {
    const form = formOf(req.body);
    const draft = readDraft(form);
    if (bestaand) draft.naam = (req.params as { naam: string }).naam;
    const answer = await callAdminApi(
      ui,
      req,
      bestaand ? 'PUT' : 'POST',
      bestaand ? `${API}/${encodeURIComponent(draft.naam)}` : API,
      toBody(draft, typeof form.secret === 'string' ? form.secret : ''),
    );
    if (answer.status !== 200 && answer.status !== 201)
      return editor(req, reply, draft, { bestaand, errors: problemMessages(answer), status: answer.status === 404 ? 404 : 400 });
    req.log.info(
      { doelregistratie: draft.naam, by: sessionOf(req).user },
      bestaand ? 'doelregistratie changed on the admin screen' : 'doelregistratie created on the admin screen',
    );
    return redirect(reply, `${UI}/overdrachten?gedaan=doelregistratie`);
  };

  scope.get('/overdrachten/doelregistraties/nieuw', async (req, reply) => editor(req, reply, blank()));
  scope.post('/overdrachten/doelregistraties/nieuw', async (req, reply) => save(req, reply, false));
  scope.get<{ Params: { naam: string } }>('/overdrachten/doelregistraties/:naam', async (req, reply) => {
    const answer = NAME.test(req.params.naam)
      ? await callAdminApi(ui, req, 'GET', `${API}/${encodeURIComponent(req.params.naam)}`)
      : { status: 404, body: { detail: 'Deze doelregistratie bestaat niet.' } };
    if (answer.status !== 200) return editor(req, reply, blank(), { errors: problemMessages(answer), status: 404 });
    return editor(req, reply, draftOf(answer.body as Record<string, unknown>), { bestaand: true });
  });
  scope.post<{ Params: { naam: string } }>('/overdrachten/doelregistraties/:naam', async (req, reply) => save(req, reply, true));
  scope.post<{ Params: { naam: string } }>('/overdrachten/doelregistraties/:naam/verwijderen', async (req, reply) => {
    const answer = await callAdminApi(ui, req, 'DELETE', `${API}/${encodeURIComponent(req.params.naam)}`);
    if (answer.status !== 204) return editor(req, reply, blank(), { errors: problemMessages(answer), status: answer.status });
    req.log.info({ doelregistratie: req.params.naam, by: sessionOf(req).user }, 'doelregistratie deleted on the admin screen');
    return redirect(reply, `${UI}/overdrachten?gedaan=verwijderd`);
  });
}
