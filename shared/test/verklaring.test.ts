import { inflateSync } from 'node:zlib';
import { verklaringCsv, verklaringPdf, VERKLARING_CSV_KOLOMMEN, VERKLARING_WIJZE, type VerklaringKop, type VerklaringRegel } from '../src/verklaring';

/** RFC 4180: quoted fields, "" for a quote, CRLF between records. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch !== '"') field += ch;
      else if (text[i + 1] === '"') {
        field += '"';
        i++;
      } else quoted = false;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      row.push(field);
      field = '';
    } else if (ch === '\r' && text[i + 1] === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      i++;
    } else field += ch;
  }
  if (field || row.length) throw new Error('the last record has no CRLF');
  return rows;
}

interface Pdf {
  count: number;
  pages: string[][]; // the text shown on each page, in order
  title: string;
}

function unescape(s: string): string {
  return s.replace(/\\([0-7]{3}|.)/g, (_, e: string) => (e.length === 3 ? String.fromCharCode(parseInt(e, 8)) : e));
}

/** Reads what this generator writes, checking the structure a reader relies on: header, xref offsets, page tree. */
function readPdf(buf: Buffer): Pdf {
  const raw = buf.toString('latin1');
  expect(raw.startsWith('%PDF-1.')).toBe(true);
  expect(raw.trimEnd().endsWith('%%EOF')).toBe(true);
  const startxref = Number(/startxref\n(\d+)\n%%EOF\s*$/.exec(raw)![1]);
  expect(raw.slice(startxref, startxref + 4)).toBe('xref');
  const [, first, size] = /^xref\n(\d+) (\d+)\n/.exec(raw.slice(startxref))!.map(Number);
  expect(first).toBe(0);
  const entries = raw
    .slice(startxref)
    .split('\n')
    .slice(2, 2 + size);
  const objects = new Map<number, string>();
  entries.forEach((e, n) => {
    if (n === 0) return expect(e).toBe('0000000000 65535 f ');
    const offset = Number(e.slice(0, 10));
    expect(raw.slice(offset, offset + `${n} 0 obj`.length)).toBe(`${n} 0 obj`);
    objects.set(n, raw.slice(offset, raw.indexOf('endobj', offset)));
  });
  const trailer = /trailer\n<<(.*)>>/.exec(raw)![1];
  const root = objects.get(Number(/\/Root (\d+) 0 R/.exec(trailer)![1]))!;
  const tree = objects.get(Number(/\/Pages (\d+) 0 R/.exec(root)![1]))!;
  const count = Number(/\/Count (\d+)/.exec(tree)![1]);
  const kids = [.../\/Kids \[([^\]]*)\]/.exec(tree)![1].matchAll(/(\d+) 0 R/g)].map((m) => Number(m[1]));
  expect(kids).toHaveLength(count);
  const pages = kids.map((k) => {
    const page = objects.get(k)!;
    expect(page).toContain('/Type /Page ');
    const content = objects.get(Number(/\/Contents (\d+) 0 R/.exec(page)![1]))!;
    const length = Number(/\/Length (\d+)/.exec(content)![1]);
    const at = buf.indexOf('stream\n', raw.indexOf(`${k + 1} 0 obj`)) + 'stream\n'.length;
    const ops = inflateSync(buf.subarray(at, at + length)).toString('latin1');
    return [...ops.matchAll(/\(((?:\\.|[^\\)])*)\) Tj/g)].map((m) => unescape(m[1]));
  });
  const info = objects.get(Number(/\/Info (\d+) 0 R/.exec(trailer)![1]))!;
  return { count, pages, title: unescape(/\/Title \(((?:\\.|[^\\)])*)\)/.exec(info)![1]) };
}

const kop: VerklaringKop = {
  organisatie: '002220647',
  lijst: 'Vernietiging 2026-Q4 (proef)',
  lijstUuid: '6a1e64b5-0f5e-4c1f-9d0e-2b8b6d3f4b11',
  beoordelingen: [
    { stap: 'recordmanager', door: 'Anna de Vries', op: '2026-12-01T10:00:00Z' },
    { stap: 'archivaris', door: 'Jeroen Brouwer', op: '2026-12-03T15:30:00Z' },
  ],
  uitgevoerdOp: '2026-12-06T09:12:00Z',
};

function regel(n: number, extra: Partial<VerklaringRegel> = {}): VerklaringRegel {
  return {
    identificatie: `ZAAK-2026-${String(n).padStart(7, '0')}`,
    omschrijving: `Melding openbare ruimte ${n}`,
    zaaktype: 'http://zgw.test/catalogi/api/v1/zaaktypen/8a9d5e4c-1b2c-4d3e-9f00-112233445566',
    zaaktypeOmschrijving: 'Melding openbare ruimte',
    resultaat: '1.1 Ingericht',
    procestermijn: 'P1Y',
    archiefactiedatum: '2026-01-01',
    vernietigdOp: '2026-12-06',
    ...extra,
  };
}

test('the CSV has a header line and a line per zaak that parse back to the values, quotes and commas included', () => {
  const lastig: VerklaringRegel = regel(1, {
    omschrijving: 'Bezwaar "Dorpsstraat 1, Ede"\r\nmet een tweede regel; café ëé',
    resultaat: 'https://selectielijst.openzaak.nl/api/v1/resultaten/afa30940-855b-4a7e-aa21-9e15a8078814',
    procestermijn: null,
  });
  const csv = verklaringCsv(kop, [lastig, regel(2)]);
  const rows = parseCsv(csv);
  expect(rows[0]).toEqual([...VERKLARING_CSV_KOLOMMEN]);
  expect(rows).toHaveLength(3);
  for (const row of rows) expect(row).toHaveLength(VERKLARING_CSV_KOLOMMEN.length);
  const byName = (row: string[]) => Object.fromEntries(VERKLARING_CSV_KOLOMMEN.map((k, i) => [k, row[i]]));
  expect(byName(rows[1])).toEqual({
    identificatie: 'ZAAK-2026-0000001',
    omschrijving: lastig.omschrijving,
    zaaktype: lastig.zaaktype,
    zaaktype_omschrijving: 'Melding openbare ruimte',
    resultaat: lastig.resultaat,
    procestermijn: '',
    archiefactiedatum: '2026-01-01',
    vernietigd_op: '2026-12-06',
    organisatie: '002220647',
    vernietigingslijst: kop.lijst,
    vernietigingslijst_uuid: kop.lijstUuid,
    uitgevoerd_op: kop.uitgevoerdOp,
    beoordelingen: 'recordmanager: Anna de Vries (2026-12-01T10:00:00Z); archivaris: Jeroen Brouwer (2026-12-03T15:30:00Z)',
  });
  expect(byName(rows[2]).procestermijn).toBe('P1Y');
  // only the header when nothing was destroyed
  expect(parseCsv(verklaringCsv(kop, []))).toEqual([[...VERKLARING_CSV_KOLOMMEN]]);
});

test('a CSV field a spreadsheet would take for a formula starts with a quote', () => {
  const rows = parseCsv(
    verklaringCsv(kop, [
      regel(1, { omschrijving: '=HYPERLINK("http://x.test","klik")', zaaktypeOmschrijving: '+31 6', resultaat: '-1', identificatie: '@SUM(A1)' }),
    ]),
  );
  expect(rows[1].slice(0, 5)).toEqual(["'@SUM(A1)", '\'=HYPERLINK("http://x.test","klik")', rows[1][2], "'+31 6", "'-1"]);
  expect(rows[1][7]).toBe('2026-12-06'); // a field with a - inside is left as it is
});

test('the PDF is a PDF whose pages hold the title, the list, its reviews and every zaak once, in order', async () => {
  const regels = Array.from({ length: 1200 }, (_, n) => regel(n + 1));
  regels[5] = regel(6, {
    omschrijving: 'Aanvraag omgevingsvergunning (bouwen) café “De Zwaan”, Ëde; een omschrijving die niet op één regel past',
    resultaat: 'https://selectielijst.openzaak.nl/api/v1/resultaten/afa30940-855b-4a7e-aa21-9e15a8078814',
  });
  const buf = await verklaringPdf(kop, regels);
  const pdf = readPdf(buf);
  // both fonts say the width of each character they draw, so a viewer drawing Helvetica with another font keeps the
  // table's columns where the layout put them
  const fonts = [...buf.toString('latin1').matchAll(/\/BaseFont \/(Helvetica(?:-Bold)?) [^>]*\/FirstChar 32 \/LastChar 255 \/Widths \[([^\]]*)\]/g)];
  expect(fonts.map((f) => f[1])).toEqual(['Helvetica', 'Helvetica-Bold']);
  for (const f of fonts) expect(f[2]!.trim().split(' ').map(Number)).toEqual(expect.arrayContaining([278, 556]));
  for (const f of fonts) expect(f[2]!.trim().split(' ')).toHaveLength(224);
  expect(pdf.title).toBe(`Verklaring van vernietiging: ${kop.lijst}`);
  expect(pdf.pages).toHaveLength(pdf.count);
  expect(pdf.count).toBeGreaterThan(1200 / 40);
  const first = pdf.pages[0].join('\n');
  for (const t of ['Verklaring van vernietiging', '002220647', `${kop.lijst} (${kop.lijstUuid})`, kop.uitgevoerdOp, '1200']) {
    expect(first).toContain(t);
  }
  expect(first.replace(/\s+/g, ' ')).toContain(`Wijze van vernietiging ${VERKLARING_WIJZE.split(' ').slice(0, 4).join(' ')}`);
  expect(first).toContain('recordmanager');
  expect(first).toContain('Anna de Vries, 2026-12-01T10:00:00Z');
  expect(first).toContain('Jeroen Brouwer, 2026-12-03T15:30:00Z');
  // every zaak once, in order, each page with the table's header and its number of the total
  const ids = pdf.pages.flatMap((p) => p.filter((t) => /^ZAAK-2026-\d{7}$/.test(t)));
  expect(ids).toEqual(regels.map((r) => r.identificatie));
  pdf.pages.forEach((p, i) => {
    expect(p).toContain('Identificatie');
    expect(p).toContain('Archiefactiedatum');
    expect(p).toContain(`${kop.lijst} - pagina ${i + 1} van ${pdf.count}`);
  });
  // a page between the first and the last is full: 30 rows of one line each
  expect(pdf.pages[2].filter((t) => /^ZAAK-/.test(t))).toHaveLength(30);
  // a long field is wrapped over lines, nothing of it lost; WinAnsi characters come through (in Latin-1 here)
  const all = pdf.pages.flat();
  const at = all.indexOf('ZAAK-2026-0000006');
  const rest = all.slice(at, at + 40).join(' ');
  expect(rest.replace(/\s+/g, '')).toContain('Aanvraagomgevingsvergunning(bouwen)café\x93DeZwaan\x94,Ëde;eenomschrijvingdienietopéénregelpast');
  expect(rest.replace(/\s+/g, '')).toContain('https://selectielijst.openzaak.nl/api/v1/resultaten/afa30940-855b-4a7e-aa21-9e15a8078814');
});

test('a list of one zaak without reviews is one page; no BSN-like value reaches either form, whatever else the rows carry', async () => {
  const bsn = '111222333';
  const metBsn = { ...regel(1), bsn, rollen: [{ inpBsn: bsn }] } as VerklaringRegel;
  const leeg = { ...kop, beoordelingen: [] };
  const pdf = readPdf(await verklaringPdf(leeg, [metBsn]));
  expect(pdf.count).toBe(1);
  expect(pdf.pages[0]).toContain('(geen)');
  const csv = verklaringCsv(leeg, [metBsn]);
  for (const text of [pdf.pages.flat().join('\n'), csv]) {
    expect(text).toContain('ZAAK-2026-0000001');
    expect(text).not.toContain(bsn);
    // nine digits on their own are the organisation's RSIN only
    expect(text.replaceAll(kop.organisatie, '')).not.toMatch(/(?<!\d)\d{9}(?!\d)/);
  }
});
