import { deflateSync } from 'node:zlib';

/**
 * The verklaring van vernietiging: what a carried-out destruction list destroyed, per zaak, with the list's reviews,
 * as a CSV (RFC 4180) and a PDF. Only what the types below carry is written: no BSN or other personal identifier.
 */

export interface VerklaringRegel {
  identificatie: string;
  omschrijving: string;
  zaaktype: string;
  zaaktypeOmschrijving: string;
  /** The selectielijst resultaat (its URL or naam). */
  resultaat: string;
  procestermijn: string | null;
  archiefactiedatum: string;
  vernietigdOp: string;
}

export interface VerklaringKop {
  /** The organisation's RSIN. */
  organisatie: string;
  /** The list's naam. */
  lijst: string;
  lijstUuid: string;
  beoordelingen: { stap: string; door: string; op: string }[];
  uitgevoerdOp: string;
}

export const VERKLARING_CSV_KOLOMMEN = [
  'identificatie',
  'omschrijving',
  'zaaktype',
  'zaaktype_omschrijving',
  'resultaat',
  'procestermijn',
  'archiefactiedatum',
  'vernietigd_op',
  'organisatie',
  'vernietigingslijst',
  'vernietigingslijst_uuid',
  'uitgevoerd_op',
  'beoordelingen',
] as const;

/** A field as a spreadsheet opens it safely: one starting with = + - @ (or a tab or CR) is not read as a formula. */
function csvVeld(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return `"${safe.replace(/"/g, '""')}"`;
}

function beoordelingenTekst(kop: VerklaringKop): string {
  return kop.beoordelingen.map((b) => `${b.stap}: ${b.door} (${b.op})`).join('; ');
}

/** One header line, then a line per zaak (the list's own data repeated on each, so every line stands alone); CRLF. */
export function verklaringCsv(kop: VerklaringKop, regels: VerklaringRegel[]): string {
  const lijst = [kop.organisatie, kop.lijst, kop.lijstUuid, kop.uitgevoerdOp, beoordelingenTekst(kop)];
  const lines = [VERKLARING_CSV_KOLOMMEN.map(csvVeld).join(',')];
  for (const r of regels) {
    const zaak = [
      r.identificatie,
      r.omschrijving,
      r.zaaktype,
      r.zaaktypeOmschrijving,
      r.resultaat,
      r.procestermijn ?? '',
      r.archiefactiedatum,
      r.vernietigdOp,
    ];
    lines.push([...zaak, ...lijst].map(csvVeld).join(','));
  }
  return lines.join('\r\n') + '\r\n';
}

// ---- PDF: A4 landscape, the standard Helvetica fonts (no font embedded), one content stream per page ----

const PAGE_W = 842;
const PAGE_H = 595;
const MARGIN = 36;
const SIZE = 8;
const LEADING = 10;
/** The width of the labels of the title block. */
const LABEL = 150;

/** Helvetica's advance widths (per 1000 units) of the printable ASCII characters 32..126 (its AFM file). */
const HELVETICA = [
  278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278, 556, 556, 556, 556, 556, 556, 556, 556, 556, 556, 278, 278, 584,
  584, 584, 556, 1015, 667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833, 722, 778, 667, 778, 722, 667, 611, 722, 667, 944, 667, 667,
  611, 278, 278, 278, 469, 556, 333, 556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500, 222, 833, 556, 556, 556, 556, 333, 500, 278, 556, 500,
  722, 500, 500, 500, 334, 260, 334, 584,
];
/** Helvetica-Bold's, the same characters. */
const HELVETICA_BOLD = [
  278, 333, 474, 556, 556, 889, 722, 238, 333, 333, 389, 584, 278, 333, 278, 278, 556, 556, 556, 556, 556, 556, 556, 556, 556, 556, 333, 333, 584,
  584, 584, 611, 975, 722, 722, 722, 722, 667, 611, 778, 722, 278, 556, 722, 611, 833, 722, 778, 667, 778, 722, 667, 611, 722, 667, 944, 667, 667,
  611, 333, 278, 333, 584, 556, 333, 556, 611, 556, 611, 556, 333, 611, 611, 278, 278, 556, 278, 889, 611, 611, 611, 611, 389, 556, 333, 611, 556,
  778, 556, 556, 500, 389, 280, 389, 584,
];

/** The characters WinAnsiEncoding places in 0x80..0x9F, where Latin-1 has none, with their widths (regular, bold). */
const WIN_ANSI_EXTRA: Record<string, [number, number, number]> = {
  '€': [0x80, 556, 556],
  '‚': [0x82, 222, 278],
  ƒ: [0x83, 556, 556],
  '„': [0x84, 333, 500],
  '…': [0x85, 1000, 1000],
  '‘': [0x91, 222, 278],
  '’': [0x92, 222, 278],
  '“': [0x93, 333, 500],
  '”': [0x94, 333, 500],
  '•': [0x95, 350, 350],
  '–': [0x96, 556, 556],
  '—': [0x97, 1000, 1000],
  '™': [0x99, 1000, 1000],
};

function winAnsi(ch: string): number {
  const code = ch.codePointAt(0) ?? 63;
  if (code >= 32 && code <= 126) return code;
  if (code >= 0xa0 && code <= 0xff) return code;
  return WIN_ANSI_EXTRA[ch]?.[0] ?? 63; // '?'
}

/**
 * The widths of codes 32..255 of a font in WinAnsiEncoding: ASCII from its table, an accented Latin-1 letter as its
 * base letter, the 0x80..0x9F punctuation from WIN_ANSI_EXTRA, anything else 556. Written into the PDF (/Widths), so a
 * viewer that draws Helvetica with another font still places each character where the table has it.
 */
function widthsOf(ascii: number[], bold: boolean): number[] {
  const out: number[] = [];
  for (let code = 32; code <= 255; code++) {
    if (code <= 126) out.push(ascii[code - 32]!);
    else if (code >= 0xc0) {
      const base = String.fromCharCode(code).normalize('NFD').charCodeAt(0);
      out.push(base >= 32 && base <= 126 ? ascii[base - 32]! : 556);
    } else {
      const extra = Object.values(WIN_ANSI_EXTRA).find(([c]) => c === code);
      out.push(extra ? extra[bold ? 2 : 1] : code === 0xa0 ? 278 : 556);
    }
  }
  return out;
}
const WIDTHS = { regular: widthsOf(HELVETICA, false), bold: widthsOf(HELVETICA_BOLD, true) };

function charWidth(ch: string, size: number, bold: boolean): number {
  return ((bold ? WIDTHS.bold : WIDTHS.regular)[winAnsi(ch) - 32]! * size) / 1000;
}

function textWidth(text: string, size: number, bold = false): number {
  let w = 0;
  for (const ch of text) w += charWidth(ch, size, bold);
  return w;
}

/** A PDF string literal in WinAnsiEncoding, its bytes outside printable ASCII as octal escapes. */
function pdfString(text: string): string {
  let out = '(';
  for (const ch of text.replace(/[\r\n\t]+/g, ' ')) {
    const code = winAnsi(ch);
    if (code === 0x28 || code === 0x29 || code === 0x5c) out += '\\' + String.fromCharCode(code);
    else if (code >= 32 && code <= 126) out += String.fromCharCode(code);
    else out += '\\' + code.toString(8).padStart(3, '0');
  }
  return out + ')';
}

/** The text broken into lines that fit `width`: at spaces, slashes and hyphens where it can, anywhere where it must. */
function wrap(text: string, width: number, size = SIZE, bold = false): string[] {
  const clean = text.replace(/\s+/g, ' ').trim();
  if (!clean) return [''];
  const lines: string[] = [];
  let line = '';
  let lineW = 0;
  let breakAt = -1; // index in `line` just after the last break opportunity
  for (const ch of clean) {
    const w = charWidth(ch, size, bold);
    if (lineW + w > width && line) {
      if (breakAt > 0 && breakAt < line.length) {
        lines.push(line.slice(0, breakAt).trimEnd());
        line = line.slice(breakAt).trimStart();
      } else {
        lines.push(line.trimEnd());
        line = '';
      }
      lineW = textWidth(line, size, bold);
      breakAt = -1;
      if (ch === ' ' && !line) continue;
    }
    line += ch;
    lineW += w;
    if (ch === ' ' || ch === '/' || ch === '-') breakAt = line.length;
  }
  if (line) lines.push(line.trimEnd());
  return lines;
}

interface Kolom {
  kop: string;
  breedte: number;
  waarde: (r: VerklaringRegel) => string;
}

const KOLOMMEN: Kolom[] = [
  { kop: 'Identificatie', breedte: 95, waarde: (r) => r.identificatie },
  { kop: 'Omschrijving', breedte: 155, waarde: (r) => r.omschrijving },
  { kop: 'Zaaktype', breedte: 110, waarde: (r) => r.zaaktypeOmschrijving || r.zaaktype },
  { kop: 'Resultaat (selectielijst)', breedte: 170, waarde: (r) => r.resultaat },
  { kop: 'Procestermijn', breedte: 62, waarde: (r) => r.procestermijn ?? '' },
  { kop: 'Archiefactiedatum', breedte: 80, waarde: (r) => r.archiefactiedatum },
  { kop: 'Vernietigd op', breedte: 98, waarde: (r) => r.vernietigdOp },
];
const PAD = 3;
/** How the zaken were destroyed (Archiefbesluit 1995 art. 8 asks the verklaring to say so). */
export const VERKLARING_WIJZE =
  'verwijderd uit de registratie: elke zaak met haar onderdelen, besluiten en de documenten die geen andere zaak of besluit gebruikt, met hun inhoud, volgens de vernietigingslijst hierboven; wat een zaak nog elders gebruikt, is bewaard.';
const WIJZE = VERKLARING_WIJZE;
const MAX_CEL = 30;

/** Drawing operators for one page, gathered as text. */
class Pagina {
  ops: string[] = [];
  text(x: number, y: number, s: string, size = SIZE, bold = false): void {
    this.ops.push(`BT /${bold ? 'F2' : 'F1'} ${size} Tf ${x.toFixed(2)} ${y.toFixed(2)} Td ${pdfString(s)} Tj ET`);
  }
  line(x1: number, y1: number, x2: number, y2: number): void {
    this.ops.push(`${x1.toFixed(2)} ${y1.toFixed(2)} m ${x2.toFixed(2)} ${y2.toFixed(2)} l S`);
  }
  fill(x: number, y: number, w: number, h: number, grey: number): void {
    this.ops.push(`q ${grey} g ${x.toFixed(2)} ${y.toFixed(2)} ${w.toFixed(2)} ${h.toFixed(2)} re f Q`);
  }
}

function layout(kop: VerklaringKop, regels: VerklaringRegel[]): Pagina[] {
  const pages: Pagina[] = [];
  const tableW = KOLOMMEN.reduce((s, k) => s + k.breedte, 0);
  const textW = PAGE_W - 2 * MARGIN;
  let page = new Pagina();
  let y = PAGE_H - MARGIN;

  // the title block, on the first page only
  y -= 16;
  page.text(MARGIN, y, 'Verklaring van vernietiging', 16, true);
  y -= 8;
  const kopRegels: [string, string][] = [
    ['Organisatie (RSIN)', kop.organisatie],
    ['Vernietigingslijst', `${kop.lijst} (${kop.lijstUuid})`],
    ['Uitgevoerd op', kop.uitgevoerdOp],
    ['Aantal vernietigde zaken', String(regels.length)],
    ['Wijze van vernietiging', WIJZE],
  ];
  for (const [label, waarde] of kopRegels) {
    for (const [i, l] of wrap(waarde, textW - LABEL, 10).entries()) {
      y -= 13;
      if (i === 0) page.text(MARGIN, y, label, 10, true);
      page.text(MARGIN + LABEL, y, l, 10);
    }
  }
  y -= 18;
  page.text(MARGIN, y, 'Beoordelingen', 11, true);
  if (!kop.beoordelingen.length) {
    y -= 13;
    page.text(MARGIN, y, '(geen)', 10);
  }
  for (const b of kop.beoordelingen) {
    for (const [i, l] of wrap(`${b.door}, ${b.op}`, textW - LABEL, 10).entries()) {
      y -= 13;
      if (y < MARGIN + 40) {
        pages.push(page);
        page = new Pagina();
        y = PAGE_H - MARGIN - 13;
      }
      if (i === 0) page.text(MARGIN, y, b.stap, 10, true);
      page.text(MARGIN + LABEL, y, l, 10);
    }
  }
  y -= 20;

  const koppen = KOLOMMEN.map((k) => wrap(k.kop, k.breedte - 2 * PAD, SIZE, true));
  const header = (p: Pagina, top: number): number => {
    const h = Math.max(...koppen.map((c) => c.length)) * LEADING + 2 * PAD;
    p.fill(MARGIN, top - h, tableW, h, 0.88);
    let x = MARGIN;
    for (const [i, k] of KOLOMMEN.entries()) {
      koppen[i]!.forEach((l, n) => p.text(x + PAD, top - PAD - SIZE - n * LEADING + 1, l, SIZE, true));
      x += k.breedte;
    }
    p.line(MARGIN, top - h, MARGIN + tableW, top - h);
    return top - h;
  };
  const bottom = MARGIN + 20; // room for the page number
  if (y - 3 * LEADING < bottom) {
    pages.push(page);
    page = new Pagina();
    y = PAGE_H - MARGIN;
  }
  y = header(page, y);
  for (const r of regels) {
    const cellen = KOLOMMEN.map((k) => {
      const lines = wrap(k.waarde(r), k.breedte - 2 * PAD);
      // a row never outgrows a page (the CSV has every field whole)
      return lines.length > MAX_CEL ? [...lines.slice(0, MAX_CEL - 1), `${lines[MAX_CEL - 1]}…`] : lines;
    });
    const h = Math.max(...cellen.map((c) => c.length)) * LEADING + 2 * PAD;
    if (y - h < bottom) {
      pages.push(page);
      page = new Pagina();
      y = header(page, PAGE_H - MARGIN);
    }
    let x = MARGIN;
    for (const [i, k] of KOLOMMEN.entries()) {
      cellen[i].forEach((l, n) => page.text(x + PAD, y - PAD - SIZE - n * LEADING + 1, l));
      x += k.breedte;
    }
    y -= h;
    page.line(MARGIN, y, MARGIN + tableW, y);
  }
  pages.push(page);
  pages.forEach((p, i) => {
    const label = `${kop.lijst} - pagina ${i + 1} van ${pages.length}`;
    p.text(PAGE_W - MARGIN - textWidth(label, SIZE), MARGIN, label);
  });
  return pages;
}

/** The PDF's bytes: objects written in order, their offsets in the cross-reference table. */
function serialise(pages: Pagina[], kop: VerklaringKop): Buffer {
  const parts: Buffer[] = [];
  const offsets: number[] = [];
  let length = 0;
  const push = (b: Buffer | string) => {
    const buf = typeof b === 'string' ? Buffer.from(b, 'latin1') : b;
    parts.push(buf);
    length += buf.length;
  };
  const obj = (n: number, body: Buffer | string, stream?: Buffer) => {
    offsets[n] = length;
    push(`${n} 0 obj\n`);
    push(body);
    if (stream) {
      push('\nstream\n');
      push(stream);
      push('\nendstream');
    }
    push('\nendobj\n');
  };

  // 1 catalog, 2 pages, 3 Helvetica, 4 Helvetica-Bold, 5 info, then per page: the page and its content
  const first = 6;
  const kids = pages.map((_, i) => `${first + 2 * i} 0 R`).join(' ');
  push('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n');
  obj(1, '<< /Type /Catalog /Pages 2 0 R >>');
  obj(2, `<< /Type /Pages /Kids [${kids}] /Count ${pages.length} >>`);
  const font = (name: string, widths: number[]) =>
    `<< /Type /Font /Subtype /Type1 /BaseFont /${name} /Encoding /WinAnsiEncoding /FirstChar 32 /LastChar 255 /Widths [${widths.join(' ')}] >>`;
  obj(3, font('Helvetica', WIDTHS.regular));
  obj(4, font('Helvetica-Bold', WIDTHS.bold));
  const d = new Date();
  const pdfDate = `D:${d.toISOString().replace(/[-:T]/g, '').slice(0, 14)}Z`;
  obj(5, `<< /Title ${pdfString(`Verklaring van vernietiging: ${kop.lijst}`)} /Producer (ZGW) /CreationDate (${pdfDate}) >>`);
  pages.forEach((p, i) => {
    const n = first + 2 * i;
    obj(
      n,
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${PAGE_W} ${PAGE_H}] ` +
        `/Resources << /Font << /F1 3 0 R /F2 4 0 R >> >> /Contents ${n + 1} 0 R >>`,
    );
    const content = deflateSync(Buffer.from(['0.5 w', ...p.ops].join('\n'), 'latin1'));
    obj(n + 1, `<< /Length ${content.length} /Filter /FlateDecode >>`, content);
  });
  const count = first + 2 * pages.length;
  const xref = length;
  push(`xref\n0 ${count}\n0000000000 65535 f \n`);
  for (let n = 1; n < count; n++) push(`${String(offsets[n]).padStart(10, '0')} 00000 n \n`);
  push(`trailer\n<< /Size ${count} /Root 1 0 R /Info 5 0 R >>\nstartxref\n${xref}\n%%EOF\n`);
  return Buffer.concat(parts);
}

/** The verklaring as a PDF: title, organisation, list, reviews and date, then a table of the zaken over many pages. */
export async function verklaringPdf(kop: VerklaringKop, regels: VerklaringRegel[]): Promise<Buffer> {
  return serialise(layout(kop, regels), kop);
}
