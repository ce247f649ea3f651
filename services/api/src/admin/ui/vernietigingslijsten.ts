import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { html, type Html } from '../../common/http/html';
import { UUID } from '../../common/http/urls';
import { formatTime } from './audit';
import { callAdminApi, problemMessages, sessionOf, type AdminUi } from './context';
import { checked, field, formOf, lines, type Form } from './forms';
import { apiPager, csrfField, redirect, sendPage, UI, type PageOf } from './layout';

const BASE = `${UI}/vernietigingslijsten`;
const API = '/admin/api/v1/vernietigingslijsten';
const INSTELLINGEN_API = `${API}/instellingen`;
/** A list being carried out reloads its page this often (seconds). */
const REFRESH = 5;

interface Beoordeling {
  stap: string;
  door: string;
  doorWeergave: string;
  op: string;
  besluit: 'goedgekeurd' | 'aangepast';
  uitgezonderd: number;
}

interface Voortgang {
  totaal: number;
  gedaan: number;
  vernietigd: number;
  overgeslagen: number;
  gestopt: boolean;
}

interface Lijst {
  uuid: string;
  naam: string;
  status: string;
  selectie: { datum: string; zaaktype?: string; bronorganisatie?: string } | null;
  stappen: string[];
  stap: string | null;
  beoordelingen: Beoordeling[];
  maker: string;
  makerWeergave: string;
  aangemaakt: string;
  bijgewerkt: string;
  goedgekeurdOp: string | null;
  uitvoering: {
    workflowId: string;
    gestart: string;
    door: string;
    klaar: string | null;
    fout: string | null;
    temporalUrl: string | null;
    voortgang: Voortgang | null;
  } | null;
  tellingen: Record<string, number>;
  verklaring: {
    zaak: string | null;
    pdf: string | null;
    csv: string | null;
    regels: number;
    op: string;
    downloadPdf: string;
    downloadCsv: string;
  } | null;
}

interface Item {
  zaak: string;
  identificatie: string;
  omschrijving: string;
  zaaktype: string;
  zaaktypeOmschrijving: string;
  einddatum: string | null;
  archiefactiedatum: string | null;
  resultaat: string;
  procestermijn: string | null;
  hoofdzaak: string | null;
  deelzaken: string[];
  status: string;
  uitzondering: { reden: string; stap: string; door: string; op: string; archiefactiedatum?: string } | null;
  reden: string | null;
  toelichting: string | null;
  vernietigdOp: string | null;
  /** What went with the zaak (a count only where something went) and the documents kept. */
  verslag: (Partial<Record<(typeof VERSLAG)[number][0], number>> & { documentenBehouden?: { url: string; reden: string }[] }) | null;
}

interface Instellingen {
  stappen: { naam: string; beoordelaars: string[] }[];
  verklaringZaak: string | null;
  verklaringInformatieobjecttype: string | null;
}

/** What a destroyed zaak's report counts, as the screen names it. */
const VERSLAG = [
  ['zaakobjecten', 'zaakobjecten'],
  ['besluiten', 'besluiten'],
  ['besluitinformatieobjecten', 'besluitdocumentkoppelingen'],
  ['zaakinformatieobjecten', 'zaakdocumentkoppelingen'],
  ['documenten', 'documenten'],
  ['deelzaken', 'deelzaken'],
] as const;

const LIJST_STATUS: Record<string, string> = {
  nieuw: 'nieuw',
  ter_beoordeling: 'ter beoordeling',
  teruggestuurd: 'teruggestuurd',
  goedgekeurd: 'goedgekeurd',
  bezig: 'wordt uitgevoerd',
  uitgevoerd: 'uitgevoerd',
  gestopt: 'gestopt',
  mislukt: 'mislukt',
};
const LIJST_CLASS: Record<string, string> = { goedgekeurd: 'on', uitgevoerd: 'on', teruggestuurd: 'bad', gestopt: 'bad', mislukt: 'bad' };
const ITEM_CLASS: Record<string, string> = { vernietigd: 'on', uitgezonderd: 'bad', overgeslagen: 'bad' };
const ITEM_STATUSSEN = ['voorgesteld', 'uitgezonderd', 'bezig', 'vernietigd', 'overgeslagen'];
const lijstPill = (s: string): Html => html`<span class="pill ${LIJST_CLASS[s] ?? ''}" data-status="${s}">${LIJST_STATUS[s] ?? s}</span>`;
const itemPill = (s: string): Html => html`<span class="pill ${ITEM_CLASS[s] ?? ''}" data-status="${s}">${s}</span>`;
const bijMaker = (s: string) => s === 'nieuw' || s === 'teruggestuurd';
const uitvoerbaar = (s: string) => s === 'goedgekeurd' || s === 'gestopt' || s === 'mislukt';

const NOTICES: Record<string, string> = {
  gemaakt: 'De lijst is gemaakt. Kijk de zaken na en dien haar in ter beoordeling.',
  toegevoegd: 'De zaken staan op de lijst.',
  weggehaald: 'De zaak is van de lijst gehaald.',
  ingediend: 'De lijst ligt ter beoordeling bij de eerste stap.',
  goedgekeurd: 'De stap is goedgekeurd.',
  aangepast: 'De uitgezonderde zaken zijn van de lijst; de lijst gaat terug naar de maker.',
  gestart: 'De uitvoering is gestart. Deze pagina ververst zich tot zij klaar is.',
  stoppen: 'De uitvoering stopt na de zaken die onderweg zijn.',
  instellingen: 'De instellingen zijn opgeslagen.',
};

/** The UUID of a list in a path, or nothing. */
const lijstId = (id: string): string | undefined => (UUID.test(id) ? id.toLowerCase() : undefined);

/** The settings form's steps: one a line, `naam: beoordelaar, beoordelaar` (none after the colon: any administrator). */
export function stappenVan(text: string): { naam: string; beoordelaars: string[] }[] {
  return lines(text).map((l) => {
    const at = l.indexOf(':');
    const naam = (at < 0 ? l : l.slice(0, at)).trim();
    const beoordelaars =
      at < 0
        ? []
        : l
            .slice(at + 1)
            .split(',')
            .map((s) => s.trim())
            .filter(Boolean);
    return { naam, beoordelaars };
  });
}

export const stappenTekst = (stappen: Instellingen['stappen']): string =>
  stappen.map((s) => (s.beoordelaars.length ? `${s.naam}: ${s.beoordelaars.join(', ')}` : s.naam)).join('\n');

/** A reviewer's exclusions from the review form: the rows ticked, each with its reason and optional new date. */
export function uitzonderingenVan(form: Form): { zaak: string; reden: string; archiefactiedatum?: string }[] {
  const out: { zaak: string; reden: string; archiefactiedatum?: string }[] = [];
  for (const key of Object.keys(form)) {
    const m = /^uit_(\d+)$/.exec(key);
    if (!m || !checked(form, key)) continue;
    const i = m[1]!;
    const datum = field(form, `datum_${i}`);
    out.push({ zaak: field(form, `zaak_${i}`), reden: field(form, `reden_${i}`), ...(datum ? { archiefactiedatum: datum } : {}) });
  }
  // zaken of any page of the list, one a line: `zaak; reden; nieuwe archiefactiedatum` (the date optional)
  for (const regel of lines(field(form, 'meer'))) {
    const [zaak = '', reden = '', datum = ''] = regel.split(';').map((x) => x.trim());
    out.push({ zaak, reden, ...(datum ? { archiefactiedatum: datum } : {}) });
  }
  return out;
}

/**
 * Destruction lists (docs/archiving.md): the organisation's lists and a new one from a selection (or zaken named by
 * hand); one list with its zaken, the maker's changes and submission, each review step item by item (exclude with a
 * reason and an optional new archiefactiedatum, or approve), carrying it out and following it, and the verklaring van
 * vernietiging to download; the review steps and where the verklaring is kept. Everything goes through the admin
 * endpoints (admin/vernietigingslijsten).
 */
export function registerVernietigingslijstScreens(scope: FastifyInstance, ui: AdminUi): void {
  const page = (req: FastifyRequest, title: string, extra: { errors?: string[]; status?: number; notice?: string; refresh?: number } = {}) => {
    const session = sessionOf(req);
    return { title, user: session.user, csrf: session.csrf, nav: 'vernietigingslijsten' as const, ...extra };
  };
  const failed = (req: FastifyRequest, reply: FastifyReply, errors: string[], status: number) =>
    sendPage(reply, page(req, 'Vernietigingslijsten', { errors, status }), html`<p><a href="${BASE}">Alle vernietigingslijsten</a></p>`);

  // ------------------------------------------------------------------ the lists and a new one

  const overzicht = async (req: FastifyRequest, reply: FastifyReply, opts: { errors?: string[]; status?: number; form?: Form } = {}) => {
    const session = sessionOf(req);
    const query = (req.method === 'GET' ? req.query : {}) as { page?: string; cursor?: string; status?: string; gedaan?: string };
    const q = new URLSearchParams(
      Object.entries({ page: query.page, cursor: query.cursor, status: query.status }).filter((e): e is [string, string] => !!e[1]),
    );
    const answer = await callAdminApi(ui, req, 'GET', `${API}${q.size ? `?${q}` : ''}`);
    if (answer.status !== 200) return failed(req, reply, problemMessages(answer), answer.status === 400 ? 400 : 502);
    const lijsten = answer.body as PageOf<Lijst>;
    const f = opts.form ?? {};
    const rows = lijsten.results.map(
      (l) => html`<tr data-lijst="${l.uuid}">
  <td><a href="${BASE}/${l.uuid}">${l.naam}</a></td>
  <td>${lijstPill(l.status)}${l.stap ? html` <span class="muted">stap ${l.stap}</span>` : ''}</td>
  <td>${l.tellingen.voorgesteld ?? 0}</td><td>${l.tellingen.uitgezonderd ?? 0}</td><td>${l.tellingen.vernietigd ?? 0}</td><td>${l.tellingen.overgeslagen ?? 0}</td>
  <td>${l.makerWeergave}<div class="muted">${formatTime(l.aangemaakt)}</div></td>
</tr>`,
    );
    const filter = html`<p class="filter">Toon: <a href="${BASE}"${query.status ? '' : html` aria-current="true"`}>alle</a>${Object.keys(
      LIJST_STATUS,
    ).map((s) => html` · <a href="${BASE}?status=${s}"${query.status === s ? html` aria-current="true"` : ''}>${LIJST_STATUS[s]}</a>`)}</p>`;
    return sendPage(
      reply,
      page(req, 'Vernietigingslijsten', { errors: opts.errors, status: opts.status, notice: NOTICES[query.gedaan ?? ''] }),
      html`<p>Een vernietigingslijst neemt afgesloten zaken van organisatie <code>${session.tenant}</code> met archiefnominatie <code>vernietigen</code> waarvan de archiefactiedatum verstreken is, en niet onder juridische bewaring. De lijst gaat langs de beoordelingsstappen (<a href="${BASE}/instellingen">instellingen</a>); is zij goedgekeurd, dan voert een workflow haar uit en maakt de verklaring van vernietiging.</p>
${filter}
<table id="lijsten">
<thead><tr><th>Naam</th><th>Status</th><th>Op de lijst</th><th>Uitgezonderd</th><th>Vernietigd</th><th>Overgeslagen</th><th>Gemaakt</th></tr></thead>
<tbody>${rows.length ? rows : html`<tr><td colspan="7" class="muted">Geen vernietigingslijsten.</td></tr>`}</tbody>
</table>
${apiPager(BASE, lijsten, query.page, query.status ? { status: query.status } : {})}
<h2>Nieuwe vernietigingslijst</h2>
<form method="post" action="${BASE}" id="maak-form">${csrfField(session.csrf)}
<label for="naam">Naam</label><input id="naam" name="naam" required maxlength="200" value="${field(f, 'naam')}">
<fieldset><legend>Selectie</legend>
<label for="datum">Archiefactiedatum op of voor</label><input id="datum" name="datum" type="date" value="${field(f, 'datum') || new Date().toISOString().slice(0, 10)}">
<label for="zaaktype">Alleen zaaktype (URL, optioneel)</label><input id="zaaktype" name="zaaktype" type="url" size="70" value="${field(f, 'zaaktype')}" spellcheck="false">
<label for="bronorganisatie">Alleen bronorganisatie (RSIN, optioneel)</label><input id="bronorganisatie" name="bronorganisatie" pattern="[0-9]{9}" value="${field(f, 'bronorganisatie')}">
</fieldset>
<label for="zaken">Of juist deze zaken (URL of UUID, één per regel; dan telt de selectie niet)</label><textarea id="zaken" name="zaken" rows="3" spellcheck="false">${field(f, 'zaken')}</textarea>
<div class="actions"><button type="submit">Lijst maken</button></div>
</form>`,
    );
  };

  scope.get('/vernietigingslijsten', (req, reply) => overzicht(req, reply));

  scope.post('/vernietigingslijsten', async (req, reply) => {
    const form = formOf(req.body);
    const zaken = lines(field(form, 'zaken'));
    const optional = (name: string) => field(form, name) || undefined;
    const body = zaken.length
      ? { naam: field(form, 'naam'), zaken }
      : {
          naam: field(form, 'naam'),
          selectie: { datum: field(form, 'datum'), zaaktype: optional('zaaktype'), bronorganisatie: optional('bronorganisatie') },
        };
    const answer = await callAdminApi(ui, req, 'POST', API, body);
    if (answer.status !== 201) return overzicht(req, reply, { errors: problemMessages(answer), status: answer.status, form });
    const lijst = answer.body as Lijst & { nietOpgenomen?: unknown[] };
    req.log.info({ lijst: lijst.uuid, by: sessionOf(req).user }, 'destruction list made on the admin screen');
    const niet = lijst.nietOpgenomen?.length ?? 0;
    return redirect(reply, `${BASE}/${lijst.uuid}?gedaan=gemaakt${niet ? `&niet=${niet}` : ''}`);
  });

  // ------------------------------------------------------------------ the settings

  const instellingen = async (
    req: FastifyRequest,
    reply: FastifyReply,
    opts: { errors?: string[]; status?: number; form?: Form; notice?: string } = {},
  ) => {
    const session = sessionOf(req);
    const answer = await callAdminApi(ui, req, 'GET', INSTELLINGEN_API);
    if (answer.status !== 200) return failed(req, reply, problemMessages(answer), 502);
    const i = answer.body as Instellingen;
    const f = opts.form;
    return sendPage(
      reply,
      page(req, 'Instellingen vernietigingslijsten', { errors: opts.errors, status: opts.status, notice: opts.notice }),
      html`<form method="post" action="${BASE}/instellingen" id="instellingen-form">${csrfField(session.csrf)}
<label for="stappen">Beoordelingsstappen, in volgorde: één per regel, <code>naam: beoordelaar, beoordelaar</code> (beheerders of client ids; zonder beoordelaars mag elke beheerder)</label>
<textarea id="stappen" name="stappen" rows="4" required spellcheck="false">${f ? field(f, 'stappen') : stappenTekst(i.stappen)}</textarea>
<label for="verklaringZaak">Zaak die de verklaringen van vernietiging bewaart (URL; van een zaaktype dat alleen blijvend bewaart)</label>
<input id="verklaringZaak" name="verklaringZaak" type="url" size="70" spellcheck="false" value="${f ? field(f, 'verklaringZaak') : (i.verklaringZaak ?? '')}">
<label for="verklaringInformatieobjecttype">Informatieobjecttype van de verklaringen (URL)</label>
<input id="verklaringInformatieobjecttype" name="verklaringInformatieobjecttype" type="url" size="70" spellcheck="false" value="${f ? field(f, 'verklaringInformatieobjecttype') : (i.verklaringInformatieobjecttype ?? '')}">
<div class="actions"><button type="submit">Opslaan</button></div>
</form>
<p>Een nieuwe lijst neemt de stappen van dit moment; een lijst die al bestaat houdt de hare. Zonder zaak voor de verklaring bewaart alleen de lijst zelf haar verklaring.</p>
<p><a href="${BASE}">Alle vernietigingslijsten</a></p>`,
    );
  };

  scope.get<{ Querystring: { gedaan?: string } }>('/vernietigingslijsten/instellingen', (req, reply) =>
    instellingen(req, reply, { notice: NOTICES[req.query.gedaan === 'instellingen' ? 'instellingen' : ''] }),
  );

  scope.post('/vernietigingslijsten/instellingen', async (req, reply) => {
    const form = formOf(req.body);
    const answer = await callAdminApi(ui, req, 'PUT', INSTELLINGEN_API, {
      stappen: stappenVan(field(form, 'stappen')),
      verklaringZaak: field(form, 'verklaringZaak') || null,
      verklaringInformatieobjecttype: field(form, 'verklaringInformatieobjecttype') || null,
    });
    if (answer.status !== 200) return instellingen(req, reply, { errors: problemMessages(answer), status: answer.status, form });
    req.log.info({ by: sessionOf(req).user }, 'destruction list settings changed on the admin screen');
    return redirect(reply, `${BASE}/instellingen?gedaan=instellingen`);
  });

  // ------------------------------------------------------------------ one list

  type One = { Params: { id: string }; Querystring: { gedaan?: string; niet?: string; page?: string; cursor?: string; status?: string } };

  const detail = async (req: FastifyRequest<One>, reply: FastifyReply, opts: { errors?: string[]; status?: number } = {}) => {
    const session = sessionOf(req);
    const id = lijstId(req.params.id);
    if (!id) return failed(req, reply, ['Deze vernietigingslijst bestaat niet.'], 404);
    const query = req.method === 'GET' ? req.query : {};
    const q = new URLSearchParams(
      Object.entries({ page: query.page, cursor: query.cursor, status: query.status }).filter((e): e is [string, string] => !!e[1]),
    );
    const [a, z] = await Promise.all([
      callAdminApi(ui, req, 'GET', `${API}/${id}`),
      callAdminApi(ui, req, 'GET', `${API}/${id}/zaken${q.size ? `?${q}` : ''}`),
    ]);
    if (a.status !== 200) return failed(req, reply, problemMessages(a), a.status === 404 ? 404 : 502);
    if (z.status !== 200) return failed(req, reply, problemMessages(z), z.status === 400 ? 400 : 502);
    const l = a.body as Lijst;
    const items = z.body as PageOf<Item>;
    const here = `${BASE}/${l.uuid}`;
    // (a review names the step it was given for: a step approved meanwhile by another makes it a 400, not the next step's)
    const stapVeld = l.stap ? html`<input type="hidden" name="stap" value="${l.stap}">` : '';
    const action = (to: string, label: string, confirm?: string, cls = '') =>
      html`<form method="post" action="${here}/${to}" class="inline"${confirm ? html` data-confirm="${confirm}"` : ''}>${csrfField(session.csrf)}${stapVeld}<button type="submit" id="${to}"${cls ? html` class="${cls}"` : ''}>${label}</button></form>`;
    const acties: Html[] = [];
    if (bijMaker(l.status)) {
      acties.push(action('indienen', 'Indienen ter beoordeling'));
      acties.push(
        action('verwijderen', 'Lijst verwijderen', `De lijst ${l.naam} verwijderen? Haar zaken komen vrij voor een andere lijst.`, 'secondary'),
      );
    }
    if (l.status === 'ter_beoordeling')
      acties.push(
        action(
          'goedkeuren',
          `Stap ${l.stap ?? ''} goedkeuren`,
          `De lijst goedkeuren in stap ${l.stap ?? ''}, met alle ${l.tellingen.voorgesteld ?? 0} zaken?`,
        ),
      );
    if (uitvoerbaar(l.status))
      acties.push(
        action('uitvoeren', 'Uitvoeren', `De ${l.tellingen.voorgesteld ?? 0} zaken van ${l.naam} vernietigen? Dit kan niet ongedaan worden.`),
      );
    if (l.status === 'bezig') acties.push(action('stoppen', 'Stoppen', 'De uitvoering stoppen na de zaken die onderweg zijn?', 'secondary'));

    const u = l.uitvoering;
    const v = u?.voortgang;
    const s = l.selectie;
    const facts = html`<table class="facts"><tbody>
<tr><th>Status</th><td id="status">${lijstPill(l.status)}${l.stap ? html` <span class="muted">wacht op stap</span> <strong id="stap">${l.stap}</strong>` : ''}${l.status === 'bezig' ? html` <span class="muted">(ververst elke ${REFRESH} s)</span>` : ''}</td></tr>
<tr><th>Stappen</th><td>${l.stappen.join(' → ')}</td></tr>
<tr><th>Gemaakt</th><td>${formatTime(l.aangemaakt)} door ${l.makerWeergave}</td></tr>
<tr><th>Selectie</th><td>${s ? html`archiefactiedatum op of voor ${s.datum}${s.zaaktype ? html`; zaaktype <code>${s.zaaktype}</code>` : ''}${s.bronorganisatie ? html`; bronorganisatie ${s.bronorganisatie}` : ''}` : html`<span class="muted">zaken met de hand gekozen</span>`}</td></tr>
<tr><th>Zaken</th><td id="tellingen">${ITEM_STATUSSEN.filter((k) => l.tellingen[k]).map((k) => html`<span data-telling="${k}">${l.tellingen[k]} ${k}</span> `)}</td></tr>
${l.goedgekeurdOp ? html`<tr><th>Goedgekeurd</th><td>${formatTime(l.goedgekeurdOp)}</td></tr>` : ''}
${u ? html`<tr><th>Uitvoering</th><td>gestart ${formatTime(u.gestart)} door ${u.door}${u.klaar ? html`, klaar ${formatTime(u.klaar)}` : ''}; workflow ${u.temporalUrl ? html`<a href="${u.temporalUrl}">${u.workflowId}</a>` : html`<code>${u.workflowId}</code>`}</td></tr>` : ''}
${v ? html`<tr><th>Voortgang</th><td id="voortgang"><progress max="${v.totaal}" value="${v.gedaan}"></progress> ${v.gedaan} van ${v.totaal} zaken: ${v.vernietigd} vernietigd, ${v.overgeslagen} overgeslagen${v.gestopt ? ' (stopt)' : ''}</td></tr>` : ''}
${u?.fout ? html`<tr><th>Fout</th><td id="fout">${u.fout}</td></tr>` : ''}
${l.verklaring ? html`<tr><th>Verklaring van vernietiging</th><td id="verklaring"><a href="${l.verklaring.downloadPdf}" id="verklaring-pdf">PDF</a> · <a href="${l.verklaring.downloadCsv}" id="verklaring-csv">CSV</a> <span class="muted">${l.verklaring.regels} zaken, ${formatTime(l.verklaring.op)}${l.verklaring.zaak ? html`; bewaard bij zaak <code>${l.verklaring.zaak}</code>` : ''}</span></td></tr>` : ''}
</tbody></table>`;

    const beoordelingen = l.beoordelingen.length
      ? html`<h2>Beoordelingen</h2><table id="beoordelingen"><thead><tr><th>Stap</th><th>Door</th><th>Op</th><th>Besluit</th></tr></thead><tbody>${l.beoordelingen.map(
          (b) =>
            html`<tr><td>${b.stap}</td><td>${b.doorWeergave || b.door}</td><td>${formatTime(b.op)}</td><td>${b.besluit === 'goedgekeurd' ? 'goedgekeurd' : html`${b.uitgezonderd} uitgezonderd, terug naar de maker`}</td></tr>`,
        )}</tbody></table>`
      : '';

    const beoordelen = l.status === 'ter_beoordeling';
    const opmerking = (i: Item): Html => {
      if (i.uitzondering)
        return html`<div class="uitzondering"><strong>${i.uitzondering.reden}</strong><div class="muted">stap ${i.uitzondering.stap}, ${i.uitzondering.door}, ${formatTime(i.uitzondering.op)}${i.uitzondering.archiefactiedatum ? html`; nieuwe archiefactiedatum ${i.uitzondering.archiefactiedatum}` : ''}</div></div>`;
      if (i.reden) return html`<div><strong>${i.reden}</strong><div class="muted">${i.toelichting ?? ''}</div></div>`;
      if (i.verslag) {
        const v = i.verslag;
        const mee = VERSLAG.filter(([k]) => v[k]).map(([k, naam]) => `${v[k]} ${naam}`);
        const behouden = v.documentenBehouden ?? [];
        return html`<div class="verslag muted">${i.vernietigdOp ? html`vernietigd ${formatTime(i.vernietigdOp)}` : ''}${mee.length ? html`; met ${mee.join(', ')}` : ''}${behouden.length ? html`; behouden (elders in gebruik): ${behouden.map((d) => html`<code>${d.url}</code> `)}` : ''}</div>`;
      }
      return html``;
    };
    const rows = items.results.map((i, n) => {
      const teBeoordelen = beoordelen && i.status === 'voorgesteld';
      return html`<tr data-zaak="${i.zaak}">
  <td>${i.identificatie}<div class="muted">${i.omschrijving}</div>${i.hoofdzaak ? html`<div class="muted">deelzaak van <code>${i.hoofdzaak}</code></div>` : ''}</td>
  <td>${i.zaaktypeOmschrijving || html`<code>${i.zaaktype}</code>`}</td>
  <td>${i.einddatum ?? ''}</td>
  <td>${i.archiefactiedatum ?? ''}</td>
  <td><code>${i.resultaat}</code>${i.procestermijn ? html`<div class="muted">procestermijn ${i.procestermijn}</div>` : ''}</td>
  <td>${itemPill(i.status)}${opmerking(i)}</td>
  ${
    teBeoordelen
      ? html`<td class="uitzonderen"><input type="hidden" name="zaak_${n}" value="${i.zaak}" form="beoordeling-form"><label class="check"><input type="checkbox" name="uit_${n}" form="beoordeling-form"> uitzonderen</label><input name="reden_${n}" placeholder="reden" maxlength="1000" form="beoordeling-form" aria-label="Reden voor ${i.identificatie}"><input name="datum_${n}" type="date" form="beoordeling-form" aria-label="Nieuwe archiefactiedatum voor ${i.identificatie}" title="nieuwe archiefactiedatum (optioneel)"></td>`
      : bijMaker(l.status) && i.status === 'voorgesteld'
        ? html`<td><form method="post" action="${here}/weghalen" class="inline">${csrfField(session.csrf)}<input type="hidden" name="zaak" value="${i.zaak}"><button type="submit" class="secondary">Van de lijst</button></form></td>`
        : beoordelen || bijMaker(l.status)
          ? html`<td></td>`
          : ''
  }
</tr>`;
    });
    const extraKolom = beoordelen ? html`<th>Beoordeling</th>` : bijMaker(l.status) ? html`<th></th>` : '';
    const itemFilter = html`<p class="filter">Toon: <a href="${here}"${query.status ? '' : html` aria-current="true"`}>alle</a>${ITEM_STATUSSEN.map(
      (k) => html` · <a href="${here}?status=${k}"${query.status === k ? html` aria-current="true"` : ''}>${k}</a>`,
    )}</p>`;
    const niet = Number(query.niet) || 0;
    // (a list carried out to its end no longer says it is under way: its page reloaded itself with the same link)
    const notice = query.gedaan === 'gestart' && l.status !== 'bezig' ? undefined : NOTICES[query.gedaan ?? ''];
    return sendPage(
      reply,
      page(req, `Vernietigingslijst ${l.naam}`, {
        errors: opts.errors,
        status: opts.status,
        notice:
          notice && niet
            ? `${notice} ${niet} zaken van de selectie konden niet op de lijst (al op een andere lijst, of een deelzaak die niet mee kan).`
            : notice,
        refresh: l.status === 'bezig' ? REFRESH : undefined,
      }),
      html`${facts}
<div class="actions">${acties}</div>
${
  beoordelen
    ? html`<form method="post" action="${here}/beoordelen" id="beoordeling-form">${csrfField(session.csrf)}${stapVeld}<p>Beoordeel de zaken van stap <strong>${l.stap}</strong>: vink een zaak aan om haar uit te zonderen, met een reden en zo nodig een nieuwe archiefactiedatum. Uitzonderingen halen de zaken van de lijst en sturen de lijst terug naar de maker; zonder uitzonderingen keurt u de stap goed met de knop hierboven.</p>${items.next || items.previous ? html`<p class="muted">De lijst telt meer zaken dan deze pagina: zaken van andere pagina's zondert u hieronder uit, één per regel, samen met de aangevinkte.</p>` : ''}<label for="meer">Uitzonderen per regel: <code>zaak (URL of UUID); reden; nieuwe archiefactiedatum (optioneel, JJJJ-MM-DD)</code></label><textarea id="meer" name="meer" rows="2" spellcheck="false"></textarea><div class="actions"><button type="submit">Uitzonderingen indienen</button></div></form>`
    : ''
}
${
  bijMaker(l.status)
    ? html`<form method="post" action="${here}/zaken" id="toevoegen-form">${csrfField(session.csrf)}<label for="erbij">Zaken toevoegen (URL of UUID, één per regel)</label><textarea id="erbij" name="zaken" rows="2" spellcheck="false"></textarea><div class="actions"><button type="submit" class="secondary">Toevoegen</button></div></form>`
    : ''
}
${beoordelingen}
<h2>Zaken</h2>
${itemFilter}
<table id="zaken">
<thead><tr><th>Zaak</th><th>Zaaktype</th><th>Einddatum</th><th>Archiefactiedatum</th><th>Resultaat (selectielijst)</th><th>Status</th>${extraKolom}</tr></thead>
<tbody>${rows.length ? rows : html`<tr><td colspan="7" class="muted">Geen zaken.</td></tr>`}</tbody>
</table>
${apiPager(here, items, query.page, query.status ? { status: query.status } : {})}
<p><a href="${BASE}">Alle vernietigingslijsten</a></p>`,
    );
  };

  scope.get<One>('/vernietigingslijsten/:id', (req, reply) => detail(req, reply));

  /** A POST on a list that calls the API and, when it answers `ok`, shows the list with `gedaan`; else the list with the errors. */
  const handeling = (
    path: string,
    call: (id: string, form: Form) => { method: 'POST' | 'DELETE'; url: string; body?: unknown },
    ok: number,
    gedaan: string,
    logLine: string,
    after?: (id: string) => string,
  ) =>
    scope.post<One>(`/vernietigingslijsten/:id/${path}`, async (req, reply) => {
      const id = lijstId(req.params.id);
      if (!id) return failed(req, reply, ['Deze vernietigingslijst bestaat niet.'], 404);
      const c = call(id, formOf(req.body));
      const answer = await callAdminApi(ui, req, c.method, c.url, c.body);
      if (answer.status !== ok) return detail(req, reply, { errors: problemMessages(answer), status: answer.status });
      req.log.info({ lijst: id, by: sessionOf(req).user }, logLine);
      return redirect(reply, after ? after(id) : `${BASE}/${id}?gedaan=${gedaan}`);
    });

  handeling(
    'indienen',
    (id) => ({ method: 'POST', url: `${API}/${id}/indienen` }),
    200,
    'ingediend',
    'destruction list submitted on the admin screen',
  );
  handeling(
    'goedkeuren',
    (id, form) => ({ method: 'POST', url: `${API}/${id}/beoordelingen`, body: { stap: field(form, 'stap') || undefined, uitzonderingen: [] } }),
    200,
    'goedgekeurd',
    'destruction list step approved on the admin screen',
  );
  handeling(
    'uitvoeren',
    (id) => ({ method: 'POST', url: `${API}/${id}/uitvoeren` }),
    202,
    'gestart',
    'destruction list carried out from the admin screen',
  );
  handeling(
    'stoppen',
    (id) => ({ method: 'POST', url: `${API}/${id}/stoppen` }),
    202,
    'stoppen',
    'destruction list asked to stop on the admin screen',
  );
  handeling(
    'zaken',
    (id, form) => ({ method: 'POST', url: `${API}/${id}/zaken`, body: { zaken: lines(field(form, 'zaken')) } }),
    200,
    'toegevoegd',
    'zaken added to a destruction list on the admin screen',
  );
  handeling(
    'weghalen',
    (id, form) => ({ method: 'DELETE', url: `${API}/${id}/zaken/${encodeURIComponent(/[0-9a-f-]{36}$/i.exec(field(form, 'zaak'))?.[0] ?? 'geen')}` }),
    204,
    'weggehaald',
    'zaak taken off a destruction list on the admin screen',
  );
  handeling(
    'verwijderen',
    (id) => ({ method: 'DELETE', url: `${API}/${id}` }),
    204,
    '',
    'destruction list removed on the admin screen',
    () => BASE,
  );

  scope.post<One>('/vernietigingslijsten/:id/beoordelen', async (req, reply) => {
    const id = lijstId(req.params.id);
    if (!id) return failed(req, reply, ['Deze vernietigingslijst bestaat niet.'], 404);
    const uitzonderingen = uitzonderingenVan(formOf(req.body));
    // no row ticked is no review: approving is its own button, so an empty form changes nothing
    if (!uitzonderingen.length) return detail(req, reply, { errors: ['Vink de zaken aan die u uitzondert, of keur de stap goed.'], status: 400 });
    const stap = field(formOf(req.body), 'stap') || undefined;
    const answer = await callAdminApi(ui, req, 'POST', `${API}/${id}/beoordelingen`, { stap, uitzonderingen });
    if (answer.status !== 200) return detail(req, reply, { errors: problemMessages(answer), status: answer.status });
    req.log.info(
      { lijst: id, uitgezonderd: uitzonderingen.length, by: sessionOf(req).user },
      'destruction list changed by a reviewer on the admin screen',
    );
    return redirect(reply, `${BASE}/${id}?gedaan=aangepast`);
  });
}
