import { z } from 'zod';
import type { ReferentielijstenLinks } from '../../common/platform/links';
import { UUID, uuidAtEnd } from '../../common/http/urls';
import kanalenData from './data/Communicatie_kanalen_data.json';
import procestypenData from './data/Proces_typen_data.json';
import omschrijvingenData from './data/Resultaat_type_omschrijvingen_data.json';
import resultatenData from './data/Resultaten_data.json';
import { OPENZAAK_OMSCHRIJVINGEN } from './openzaak';
import {
  CommunicatieKanaalData,
  OmschrijvingData,
  ProcesTypeData,
  ResultaatData,
  type CommunicatieKanaal,
  type ProcesType,
  type Resultaat,
  type ResultaattypeOmschrijvingGeneriek,
} from './schemas';

export const COLLECTIONS = ['procestypen', 'resultaten', 'resultaattypeomschrijvingen', 'communicatiekanalen'] as const;
export type Collection = (typeof COLLECTIONS)[number];

type Row<T> = Omit<T, 'url'> & { uuid: string };
type ProcesTypeRow = Row<ProcesType>;
type ResultaatRow = Row<Omit<Resultaat, 'procesType'>> & { procesTypeUuid: string };
type OmschrijvingRow = Row<ResultaattypeOmschrijvingGeneriek>;
type KanaalRow = Row<CommunicatieKanaal>;

/** Reads one data file: every entry must have the published shape (the platform does not start otherwise). */
function rows<S extends z.ZodType>(file: string, schema: S, data: unknown): z.output<S>[] {
  const parsed = z.array(schema).safeParse(data);
  if (!parsed.success) throw new Error(`referentielijsten: ${file} heeft niet de verwachte vorm: ${parsed.error.message}`);
  return parsed.data;
}

function withUuid<T extends { url: string }>(file: string, item: T): Row<T> {
  const { url, ...rest } = item;
  const uuid = uuidAtEnd(url);
  if (!uuid) throw new Error(`referentielijsten: ${file} heeft een url zonder UUID: ${url}`);
  return { uuid, ...rest };
}

/**
 * The Selectielijst 2017 and 2020 and the other referentielijsten (data/README.md), in memory, shown with the base a
 * URL was asked with: the platform's own, or an alias (selectielijst.openzaak.nl, REFERENTIELIJSTEN_ALIASSEN) whose
 * objects share their UUIDs with these.
 */
export class Referentielijsten implements ReferentielijstenLinks {
  private readonly procestypen = new Map<string, ProcesTypeRow>();
  private readonly resultaten = new Map<string, ResultaatRow>();
  private readonly omschrijvingen = new Map<string, OmschrijvingRow>();
  private readonly kanalen = new Map<string, KanaalRow>();
  /** The bases that answer in process: the platform's own first, then the aliases. */
  private readonly bases: string[];

  constructor(
    /** The platform's own base (`<PUBLIC_BASE_URL>/referentielijsten/api/v1`). */
    readonly base: string,
    aliassen: readonly string[],
  ) {
    this.bases = [...new Set([base, ...aliassen].map((b) => b.replace(/\/+$/, '')))];
    const procestypen = rows('Proces_typen_data.json', ProcesTypeData, procestypenData).map((p) => withUuid('Proces_typen_data.json', p));
    procestypen.sort((a, b) => a.jaar - b.jaar || a.nummer - b.nummer);
    for (const p of procestypen) this.procestypen.set(p.uuid, p);

    const resultaten = rows('Resultaten_data.json', ResultaatData, resultatenData).map((r) => {
      const { procesType, ...rest } = withUuid('Resultaten_data.json', r);
      const procesTypeUuid = uuidAtEnd(procesType);
      if (!procesTypeUuid || !this.procestypen.has(procesTypeUuid))
        throw new Error(`referentielijsten: resultaat ${rest.uuid} noemt een onbekend procestype ${procesType}`);
      return { ...rest, procesTypeUuid };
    });
    // in the order of their procestypen, then by number (a stable sort keeps the file's order within one)
    const order = (r: ResultaatRow) => this.procestypen.get(r.procesTypeUuid)!;
    resultaten.sort((a, b) => order(a).jaar - order(b).jaar || order(a).nummer - order(b).nummer || a.nummer - b.nummer);
    for (const r of resultaten) this.resultaten.set(r.uuid, r);

    for (const { id, ...o } of rows('Resultaat_type_omschrijvingen_data.json', OmschrijvingData, omschrijvingenData))
      this.omschrijvingen.set(id.toLowerCase(), { uuid: id.toLowerCase(), ...o });
    for (const k of rows('Communicatie_kanalen_data.json', CommunicatieKanaalData, kanalenData)) {
      const kanaal = withUuid('Communicatie_kanalen_data.json', k);
      this.kanalen.set(kanaal.uuid, kanaal);
    }
  }

  procestypenLijst(jaar?: number): ProcesType[] {
    return [...this.procestypen.values()].filter((p) => jaar === undefined || p.jaar === jaar).map((p) => this.procestype(p, this.base));
  }

  /** The resultaten of the procestype each of these UUIDs names (all resultaten when none is given). */
  resultatenLijst(procesTypeUuids: readonly string[]): Resultaat[] {
    return [...this.resultaten.values()].filter((r) => procesTypeUuids.every((u) => r.procesTypeUuid === u)).map((r) => this.resultaat(r, this.base));
  }

  omschrijvingenLijst(): ResultaattypeOmschrijvingGeneriek[] {
    return [...this.omschrijvingen.values()].map((o) => this.omschrijving(o, this.base));
  }

  kanalenLijst(): CommunicatieKanaal[] {
    return [...this.kanalen.values()].map((k) => this.kanaal(k, this.base));
  }

  /**
   * One object by its UUID, shown with `base`. Under an alias, a resultaattypeomschrijving of that service (whose
   * UUIDs are its own) is this data's one of the same omschrijving, under the URL it was asked with.
   */
  detail(
    collection: Collection,
    uuid: string,
    base = this.base,
  ): ProcesType | Resultaat | ResultaattypeOmschrijvingGeneriek | CommunicatieKanaal | undefined {
    const id = uuid.toLowerCase();
    switch (collection) {
      case 'procestypen': {
        const p = this.procestypen.get(id);
        return p && this.procestype(p, base);
      }
      case 'resultaten': {
        const r = this.resultaten.get(id);
        return r && this.resultaat(r, base);
      }
      case 'resultaattypeomschrijvingen': {
        const own = this.omschrijvingen.get(id);
        if (own) return this.omschrijving(own, base);
        const naam = base === this.base ? undefined : OPENZAAK_OMSCHRIJVINGEN[id]?.toLowerCase();
        const same = naam ? [...this.omschrijvingen.values()].find((o) => o.omschrijving.toLowerCase() === naam) : undefined;
        return same && { ...this.omschrijving(same, base), url: `${base}/resultaattypeomschrijvingen/${id}` };
      }
      case 'communicatiekanalen': {
        const k = this.kanalen.get(id);
        return k && this.kanaal(k, base);
      }
    }
  }

  answer(url: string): { status: number; body: unknown } | undefined {
    const base = this.bases.find((b) => url.startsWith(`${b}/`));
    if (!base) return undefined;
    const [collection, uuid, ...rest] = url
      .slice(base.length + 1)
      .split(/[?#]/)[0]!
      .replace(/\/+$/, '')
      .split('/');
    const own = base === this.base;
    // (only details are answered here; a list URL goes the way it always went)
    if (!uuid || rest.length || !(COLLECTIONS as readonly string[]).includes(collection ?? '')) return undefined;
    const found = UUID.test(uuid) ? this.detail(collection as Collection, uuid, base) : undefined;
    if (found) return { status: 200, body: found };
    // An alias's object this data does not have may still be that service's (fetched, when it answers).
    return own ? { status: 404, body: { code: 'not_found', title: 'Niet gevonden.', status: 404, detail: `${url} bestaat niet.` } } : undefined;
  }

  private procestype({ uuid, ...p }: ProcesTypeRow, base: string): ProcesType {
    return { url: `${base}/procestypen/${uuid}`, ...p };
  }

  private resultaat({ uuid, procesTypeUuid, ...r }: ResultaatRow, base: string): Resultaat {
    return { url: `${base}/resultaten/${uuid}`, procesType: `${base}/procestypen/${procesTypeUuid}`, ...r };
  }

  private omschrijving({ uuid, ...o }: OmschrijvingRow, base: string): ResultaattypeOmschrijvingGeneriek {
    return { url: `${base}/resultaattypeomschrijvingen/${uuid}`, ...o };
  }

  private kanaal({ uuid, ...k }: KanaalRow, base: string): CommunicatieKanaal {
    return { url: `${base}/communicatiekanalen/${uuid}`, ...k };
  }
}
