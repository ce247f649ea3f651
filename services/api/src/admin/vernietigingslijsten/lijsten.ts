import { randomUUID } from 'node:crypto';
import type { Collection, Filter } from 'mongodb';
import {
  TOELICHTING,
  VERNIETIGD_COLLECTION,
  VERNIETIGINGSLIJST_ZAKEN_COLLECTION,
  VERNIETIGINGSLIJSTEN_COLLECTION,
  VERNIETIGING_INSTELLINGEN_COLLECTION,
  eigenReden,
  vandaag,
  type ItemStatus,
  type VernietigingInstellingenDoc,
  type VernietigingslijstDoc,
  type VernietigingslijstZaakDoc,
  type Weigerreden,
} from '@zgw/shared';
import type { Caller } from '../../common/auth/auth';
import type { Deps } from '../../common/platform/component';
import { ZgwError, type InvalidParam } from '../../common/http/errors';
import type { Stored } from '../../common/storage/store';
import { UUID } from '../../common/http/urls';
import { opBewaring } from '../../components/zaken/bewaring';
import type { Zaken } from '../../components/zaken/context';
import type { ZaakDoc } from '../../components/zaken/schemas';
import { instellingenVan, type Instellingen } from './instellingen';

/** The most zaken one list takes. */
export const MAX_ZAKEN = 10_000;

type Zaak = Stored<ZaakDoc>;
type Item = VernietigingslijstZaakDoc;

/** One zaak that a list did not take, and why. */
export interface Weigering {
  zaak: string;
  reden: Weigerreden;
  toelichting: string;
}

/** The statuses in which the maker may change the list (add, remove) and submit it. */
const BIJ_MAKER = ['nieuw', 'teruggestuurd'] as const;

/** Whether a reviewer may review `stap`: one it names, or any administrator when it names none. */
const magBeoordelen = (stap: Instellingen['stappen'][number] | undefined, caller: Caller) =>
  !stap || !stap.beoordelaars.length || stap.beoordelaars.includes(caller.clientId) || stap.beoordelaars.includes(caller.userId);

/**
 * The destruction lists of the caller's organisation (each collection an organisation's: the database handle adds the
 * tenant to every query): made from a selection or by hand, changed by the maker, reviewed step by step, approved.
 * Carrying one out is the workflow's (uitvoering.ts); what it destroyed stays in the list's items.
 */
export class Lijsten {
  readonly lijsten: Collection<VernietigingslijstDoc>;
  readonly items: Collection<Item>;
  readonly instellingen: () => Promise<Instellingen>;
  readonly instellingenColl: Collection<VernietigingInstellingenDoc>;

  constructor(private readonly deps: Deps) {
    this.lijsten = deps.db.collection<VernietigingslijstDoc>(VERNIETIGINGSLIJSTEN_COLLECTION);
    this.items = deps.db.collection<Item>(VERNIETIGINGSLIJST_ZAKEN_COLLECTION);
    this.instellingenColl = deps.db.collection<VernietigingInstellingenDoc>(VERNIETIGING_INSTELLINGEN_COLLECTION);
    this.instellingen = instellingenVan(this.instellingenColl);
  }

  async ensureIndexes(): Promise<void> {
    await this.lijsten.createIndex({ aangemaakt: -1, _id: -1 });
    await this.lijsten.createIndex({ status: 1, aangemaakt: -1, _id: -1 });
    await this.items.createIndex({ lijst: 1, _id: 1 });
    await this.items.createIndex({ lijst: 1, status: 1, _id: 1 });
    await this.items.createIndex({ lijst: 1, zaak: 1 }, { unique: true });
    // one open list per zaak: the key exists only while the item holds its zaak on an open list
    await this.items.createIndex({ _openZaak: 1 }, { unique: true, partialFilterExpression: { _openZaak: { $exists: true } } });
    await this.instellingenColl.createIndex({ soort: 1 }, { unique: true });
    await this.deps.db.collection(VERNIETIGD_COLLECTION).createIndex({ lijst: 1, _id: 1 });
  }

  private zaken(): Zaken {
    const z = this.deps.components.zaken as unknown as Zaken | undefined;
    if (!z) throw new ZgwError(503, 'unavailable', 'De Zaken API is niet geladen.');
    return z;
  }

  async get(uuid: string): Promise<VernietigingslijstDoc> {
    const lijst = UUID.test(uuid) ? await this.lijsten.findOne({ _id: uuid }) : null;
    if (!lijst) throw ZgwError.notFound(`Vernietigingslijst ${uuid} bestaat niet.`);
    return lijst;
  }

  /** Each status's number of items of a list. */
  async tellingen(lijst: string): Promise<Record<ItemStatus, number>> {
    const statussen: ItemStatus[] = ['voorgesteld', 'uitgezonderd', 'bezig', 'vernietigd', 'overgeslagen'];
    const counts = await Promise.all(statussen.map((status) => this.items.countDocuments({ lijst, status })));
    return Object.fromEntries(statussen.map((s, i) => [s, counts[i]!])) as Record<ItemStatus, number>;
  }

  /** Changes a list only when it is (still) in one of `statussen` (and at step `stap`): else 409, nothing changed. */
  private async zet(lijst: VernietigingslijstDoc, statussen: readonly string[], set: Partial<VernietigingslijstDoc>, push?: object): Promise<void> {
    const r = await this.lijsten.updateOne({ _id: lijst._id, status: { $in: [...statussen] }, stap: lijst.stap } as Filter<VernietigingslijstDoc>, {
      $set: { ...set, bijgewerkt: new Date() },
      ...(push ? { $push: push } : {}),
    });
    if (!r.matchedCount) throw new ZgwError(409, 'lijst-gewijzigd', 'De lijst is intussen gewijzigd; lees haar opnieuw.');
  }

  // ------------------------------------------------------------------ making

  /**
   * The candidates of a selection: closed zaken of archiefnominatie vernietigen, nog_te_archiveren, whose
   * archiefactiedatum is on or before `datum` (and today), optionally of one zaaktype or bronorganisatie. Those that the
   * list cannot take (on legal hold, on another open list, with a deelzaak not taken) are told, not taken.
   */
  async selecteer(selectie: { datum: string; zaaktype?: string; bronorganisatie?: string }): Promise<Zaak[]> {
    const tot = selectie.datum < vandaag() ? selectie.datum : vandaag();
    const z = this.zaken();
    const gevonden = await z.zaken.store.find(
      { archiefstatus: 'nog_te_archiveren', archiefnominatie: 'vernietigen', archiefactiedatum: { $lte: tot } },
      { limit: MAX_ZAKEN + 1, sort: { archiefactiedatum: 1, einddatum: 1, _id: 1 } },
    );
    if (gevonden.length > MAX_ZAKEN)
      throw ZgwError.field('selectie.datum', 'te-veel', `De selectie telt meer dan ${MAX_ZAKEN} zaken; kies een eerdere datum of een zaaktype.`);
    return gevonden.filter(
      (zaak) =>
        !!zaak.einddatum &&
        (!selectie.zaaktype || zaak.zaaktype === selectie.zaaktype) &&
        (!selectie.bronorganisatie || zaak.bronorganisatie === selectie.bronorganisatie),
    );
  }

  /** The zaken of these URLs (or uuids), each found or the reason it is not (bestaat-niet, al-vernietigd). */
  async zakenVan(urls: string[]): Promise<{ zaken: Zaak[]; weigeringen: Map<number, Weigering> }> {
    const z = this.zaken();
    const uuids = urls.map((u) => (UUID.test(u) ? u.toLowerCase() : z.zaken.uuidOf(u)));
    const found = new Map((await z.zaken.store.getMany(uuids.filter((u): u is string => !!u))).map((d) => [d._id, d]));
    const weigeringen = new Map<number, Weigering>();
    const zaken: Zaak[] = [];
    const vernietigd = await this.vernietigd(uuids.filter((u): u is string => !!u && !found.has(u)).map((u) => z.zaken.url(u)));
    uuids.forEach((u, i) => {
      const zaak = u ? found.get(u) : undefined;
      if (zaak) return void zaken.push(zaak);
      const url = u ? z.zaken.url(u) : urls[i]!;
      const reden: Weigerreden = vernietigd.has(url) ? 'al-vernietigd' : 'bestaat-niet';
      weigeringen.set(i, { zaak: urls[i]!, reden, toelichting: TOELICHTING[reden] });
    });
    return { zaken, weigeringen };
  }

  /** Which of these zaak URLs a list destroyed (its register of destroyed objects). */
  private async vernietigd(urls: string[]): Promise<Set<string>> {
    if (!urls.length) return new Set();
    const docs = await this.deps.db
      .collection<{ _id: string }>(VERNIETIGD_COLLECTION)
      .find({ _id: { $in: urls } }, { projection: { _id: 1 } })
      .toArray();
    return new Set(docs.map((d) => d._id));
  }

  /**
   * Which of `zaken` a list can take, together with those already on it (`erbij`): each one's own facts (eigenReden),
   * not on another open list, and every deelzaak on the list too (repeated: a hoofdzaak goes when its deelzaak went).
   */
  private async toets(zaken: Zaak[], lijst: string, erbij: Set<string>): Promise<{ genomen: Zaak[]; geweigerd: Map<string, Weigerreden> }> {
    const geweigerd = new Map<string, Weigerreden>();
    for (const zaak of zaken) {
      const r = eigenReden(zaak, opBewaring(zaak));
      if (r) geweigerd.set(zaak._id, r);
    }
    const ids = zaken.map((z) => z._id);
    for (let i = 0; i < ids.length; i += 1000) {
      const anders = await this.items.find({ _openZaak: { $in: ids.slice(i, i + 1000) } }, { projection: { _openZaak: 1, lijst: 1 } }).toArray();
      for (const a of anders) if (a.lijst !== lijst && !geweigerd.has(a._openZaak!)) geweigerd.set(a._openZaak!, 'op-andere-lijst');
    }
    // deelzaken: each one still here must be taken too (one destroyed already is no longer a deelzaak)
    const alleDeel = [...new Set(zaken.flatMap((z) => z._deelzaken ?? []))];
    const bestaand = new Set<string>();
    for (let i = 0; i < alleDeel.length; i += 1000)
      for (const d of await this.zaken().zaken.store.find({ _id: { $in: alleDeel.slice(i, i + 1000) } }, { projection: { _id: 1 } }))
        bestaand.add(d._id);
    for (let changed = true; changed;) {
      changed = false;
      const genomen = new Set([...erbij, ...ids.filter((id) => !geweigerd.has(id))]);
      for (const zaak of zaken) {
        if (geweigerd.has(zaak._id)) continue;
        if ((zaak._deelzaken ?? []).some((d) => bestaand.has(d) && !genomen.has(d))) {
          geweigerd.set(zaak._id, 'deelzaak-niet-op-lijst');
          changed = true;
        }
      }
    }
    return { genomen: zaken.filter((z) => !geweigerd.has(z._id)), geweigerd };
  }

  /** The items of `zaken` for list `lijst`, with what the verklaring needs of their zaaktype and resultaat. */
  private async itemsVan(zaken: Zaak[], lijst: string, opLijst: Set<string>): Promise<Item[]> {
    const z = this.zaken();
    const catalogi = this.deps.components.catalogi;
    const resultaten = new Map(
      (await z.resultaten.store.getMany(zaken.map((x) => x._resultaat).filter((r): r is string => !!r))).map((r) => [r._id, r]),
    );
    const typen = [...new Set([...zaken.map((x) => x.zaaktype), ...[...resultaten.values()].map((r) => r.resultaattype)])];
    const views = catalogi ? await catalogi.views(typen) : new Map();
    const procestermijnen = new Map<string, string | null>();
    const procestermijn = async (klasse: string): Promise<string | null> => {
      if (!klasse) return null;
      if (!procestermijnen.has(klasse)) {
        const r = await this.deps.fetchJson(klasse).catch(() => ({ status: 0, body: undefined }));
        const body = r.status === 200 ? (r.body as { procestermijn?: unknown }) : undefined;
        procestermijnen.set(klasse, typeof body?.procestermijn === 'string' ? body.procestermijn : null);
      }
      return procestermijnen.get(klasse)!;
    };
    const out: Item[] = [];
    for (const zaak of zaken) {
      const resultaat = zaak._resultaat ? resultaten.get(zaak._resultaat) : undefined;
      const rt = resultaat ? (views.get(resultaat.resultaattype) as Record<string, unknown> | undefined) : undefined;
      const klasse = typeof rt?.selectielijstklasse === 'string' ? rt.selectielijstklasse : '';
      const zt = views.get(zaak.zaaktype) as Record<string, unknown> | undefined;
      const hoofd = zaak.hoofdzaak ? z.zaken.uuidOf(zaak.hoofdzaak) : undefined;
      out.push({
        _id: randomUUID(),
        lijst,
        zaak: zaak._id,
        url: z.zaken.url(zaak._id),
        _openZaak: zaak._id,
        status: 'voorgesteld',
        identificatie: zaak.identificatie,
        omschrijving: zaak.omschrijving ?? '',
        zaaktype: zaak.zaaktype,
        zaaktypeOmschrijving: typeof zt?.omschrijving === 'string' ? zt.omschrijving : '',
        bronorganisatie: zaak.bronorganisatie,
        einddatum: zaak.einddatum ?? null,
        archiefnominatie: zaak.archiefnominatie ?? null,
        archiefactiedatum: zaak.archiefactiedatum ?? null,
        resultaat: klasse || (typeof rt?.omschrijving === 'string' ? rt.omschrijving : ''),
        procestermijn: await procestermijn(klasse),
        ...(hoofd && opLijst.has(hoofd) ? { hoofdzaak: hoofd } : {}),
        deelzaken: zaak._deelzaken ?? [],
      });
    }
    return out;
  }

  /** Stores new items; a zaak another list took meanwhile (the unique open key) undoes them all: 409. */
  private async voegToe(items: Item[]): Promise<void> {
    try {
      for (let i = 0; i < items.length; i += 1000) await this.items.insertMany(items.slice(i, i + 1000), { ordered: true });
    } catch (err) {
      await this.items.deleteMany({ _id: { $in: items.map((x) => x._id) } });
      if ((err as { code?: number }).code === 11000)
        throw new ZgwError(409, 'op-andere-lijst', 'Een zaak is intussen op een andere vernietigingslijst gezet; probeer het opnieuw.');
      throw err;
    }
  }

  /**
   * Makes a list: from a selection (what it cannot take is told in `nietOpgenomen`; nothing taken: 400), or of zaken
   * named by hand (each that cannot be taken: 400 with its reason, nothing made).
   */
  async maak(
    input: { naam: string; selectie?: { datum: string; zaaktype?: string; bronorganisatie?: string }; zaken?: string[] },
    caller: Caller,
  ): Promise<{ lijst: VernietigingslijstDoc; nietOpgenomen: Weigering[] }> {
    const _id = randomUUID();
    const { stappen } = await this.instellingen();
    let genomen: Zaak[];
    let nietOpgenomen: Weigering[] = [];
    if (input.selectie) {
      const r = await this.toets(await this.selecteer(input.selectie), _id, new Set());
      genomen = r.genomen;
      const z = this.zaken();
      nietOpgenomen = [...r.geweigerd].map(([uuid, reden]) => ({ zaak: z.zaken.url(uuid), reden, toelichting: TOELICHTING[reden] }));
      if (!genomen.length)
        throw ZgwError.field(
          'selectie',
          'geen-zaken',
          nietOpgenomen.length
            ? `Geen zaak van de selectie kan op de lijst (${nietOpgenomen.length} geweigerd, o.a. ${nietOpgenomen[0]!.reden}).`
            : 'De selectie vindt geen zaak die vernietigd kan worden.',
        );
    } else {
      genomen = await this.strikt(input.zaken ?? [], _id, new Set(), 'zaken');
    }
    const now = new Date();
    const lijst: VernietigingslijstDoc = {
      _id,
      naam: input.naam,
      status: 'nieuw',
      selectie: input.selectie ?? null,
      stappen: stappen.map((s) => s.naam),
      stap: 0,
      beoordelingen: [],
      maker: caller.clientId,
      makerWeergave: caller.userRepresentation || caller.clientId,
      aangemaakt: now,
      bijgewerkt: now,
    };
    await this.lijsten.insertOne(lijst);
    try {
      await this.voegToe(await this.itemsVan(genomen, _id, new Set(genomen.map((g) => g._id))));
    } catch (err) {
      await this.lijsten.deleteOne({ _id });
      throw err;
    }
    this.deps.log.info({ lijst: _id, zaken: genomen.length, nietOpgenomen: nietOpgenomen.length, by: caller.clientId }, 'destruction list made');
    return { lijst, nietOpgenomen };
  }

  /** The zaken named by hand, each one the list can take: else 400 with the reason of each that it cannot. */
  private async strikt(urls: string[], lijst: string, erbij: Set<string>, veld: string): Promise<Zaak[]> {
    const { zaken, weigeringen } = await this.zakenVan(urls);
    const { genomen, geweigerd } = await this.toets(zaken, lijst, erbij);
    const z = this.zaken();
    const params: InvalidParam[] = [];
    urls.forEach((u, i) => {
      const w = weigeringen.get(i);
      const uuid = UUID.test(u) ? u.toLowerCase() : z.zaken.uuidOf(u);
      const reden = w?.reden ?? (uuid ? geweigerd.get(uuid) : undefined);
      if (reden) params.push({ name: `${veld}.${i}`, code: reden, reason: `${u}: ${TOELICHTING[reden]}` });
    });
    if (params.length) throw ZgwError.validation(params, 'Niet elke zaak kan op de vernietigingslijst.');
    return genomen;
  }

  /** The maker adds zaken (while the list is with the maker): each must be one it can take (else 400, none added). */
  async voegZakenToe(uuid: string, urls: string[]): Promise<void> {
    const lijst = await this.get(uuid);
    if (!BIJ_MAKER.includes(lijst.status as (typeof BIJ_MAKER)[number]))
      throw new ZgwError(409, 'lijst-niet-bij-maker', `Zaken toevoegen kan alleen aan een lijst die bij de maker ligt (status ${lijst.status}).`);
    const bestaand = await this.items.find({ lijst: uuid }, { projection: { zaak: 1, status: 1 } }).toArray();
    const erop = new Set(bestaand.filter((i) => i.status === 'voorgesteld').map((i) => i.zaak));
    const nieuw = urls.filter((u) => {
      const id = UUID.test(u) ? u.toLowerCase() : this.zaken().zaken.uuidOf(u);
      return !id || !erop.has(id);
    });
    const genomen = await this.strikt(nieuw, uuid, erop, 'zaken');
    // (a zaak excluded earlier comes back: its item is taken up again)
    const terug = new Set(bestaand.filter((i) => i.status === 'uitgezonderd').map((i) => i.zaak));
    await this.items.deleteMany({ lijst: uuid, zaak: { $in: genomen.filter((g) => terug.has(g._id)).map((g) => g._id) } });
    await this.voegToe(await this.itemsVan(genomen, uuid, new Set([...erop, ...genomen.map((g) => g._id)])));
    await this.zet(lijst, BIJ_MAKER, {});
  }

  /** The maker takes a zaak off the list (while it is with the maker); a hoofdzaak on the list keeps its deelzaak. */
  async haalZaakWeg(uuid: string, zaak: string): Promise<void> {
    const lijst = await this.get(uuid);
    if (!BIJ_MAKER.includes(lijst.status as (typeof BIJ_MAKER)[number]))
      throw new ZgwError(409, 'lijst-niet-bij-maker', `Zaken weghalen kan alleen uit een lijst die bij de maker ligt (status ${lijst.status}).`);
    const item = UUID.test(zaak) ? await this.items.findOne({ lijst: uuid, zaak }) : null;
    if (!item || item.status !== 'voorgesteld') throw ZgwError.notFound(`Zaak ${zaak} staat niet op deze lijst.`);
    if (item.hoofdzaak && (await this.items.findOne({ lijst: uuid, zaak: item.hoofdzaak, status: 'voorgesteld' })))
      throw ZgwError.field('zaak', 'deelzaak-niet-op-lijst', 'Haal eerst de hoofdzaak van deze deelzaak van de lijst.');
    await this.items.deleteOne({ _id: item._id });
    await this.zet(lijst, BIJ_MAKER, {});
  }

  /** A list that was never carried out is removed with its items (its zaken free for another list). */
  async verwijder(uuid: string): Promise<void> {
    const lijst = await this.get(uuid);
    if (!BIJ_MAKER.includes(lijst.status as (typeof BIJ_MAKER)[number]) && lijst.status !== 'ter_beoordeling')
      throw new ZgwError(409, 'lijst-niet-te-verwijderen', `Een lijst met status ${lijst.status} blijft bewaard.`);
    const r = await this.lijsten.deleteOne({ _id: uuid, status: lijst.status });
    if (!r.deletedCount) throw new ZgwError(409, 'lijst-gewijzigd', 'De lijst is intussen gewijzigd; lees haar opnieuw.');
    await this.items.deleteMany({ lijst: uuid });
  }

  // ------------------------------------------------------------------ review

  /** The maker submits the list: the review begins at the first step. */
  async dienIn(uuid: string): Promise<void> {
    const lijst = await this.get(uuid);
    if (!BIJ_MAKER.includes(lijst.status as (typeof BIJ_MAKER)[number]))
      throw new ZgwError(409, 'lijst-niet-bij-maker', `Alleen een lijst bij de maker kan worden ingediend (status ${lijst.status}).`);
    if (!(await this.items.countDocuments({ lijst: uuid, status: 'voorgesteld' })))
      throw ZgwError.field('zaken', 'geen-zaken', 'Er staat geen zaak op de lijst.');
    await this.zet(lijst, BIJ_MAKER, { status: 'ter_beoordeling', stap: 0 });
  }

  /**
   * A review of the current step: no exclusions approves the step (the last step approves the list, once each zaak
   * is checked again: any that may no longer be destroyed is a 400 naming it); exclusions take those zaken off the list
   * (with the reason, and a new archiefactiedatum on the zaak where given) and send the list back to the maker.
   */
  async beoordeel(
    uuid: string,
    input: { stap?: string; uitzonderingen: { zaak: string; reden: string; archiefactiedatum?: string }[] },
    caller: Caller,
  ): Promise<void> {
    const lijst = await this.get(uuid);
    if (lijst.status !== 'ter_beoordeling')
      throw new ZgwError(409, 'lijst-niet-ter-beoordeling', `De lijst ligt niet ter beoordeling (status ${lijst.status}).`);
    const stapNaam = lijst.stappen[lijst.stap]!;
    if (input.stap && input.stap !== stapNaam)
      throw ZgwError.field('stap', 'andere-stap', `De lijst wacht op de beoordeling van stap ${stapNaam}, niet ${input.stap}.`);
    const { stappen } = await this.instellingen();
    if (
      !magBeoordelen(
        stappen.find((s) => s.naam === stapNaam),
        caller,
      )
    )
      throw ZgwError.forbidden(`U bent geen beoordelaar van stap ${stapNaam}.`);
    const door = { door: caller.clientId, doorWeergave: caller.userRepresentation || caller.clientId, op: new Date() };
    if (input.uitzonderingen.length) {
      const items = await this.uitgezonderd(uuid, input.uitzonderingen);
      await this.zet(
        lijst,
        ['ter_beoordeling'],
        { status: 'teruggestuurd', stap: 0 },
        { beoordelingen: { stap: stapNaam, ...door, besluit: 'aangepast', uitgezonderd: items.length } },
      );
      for (const [i, u] of input.uitzonderingen.entries()) {
        const item = items[i]!;
        await this.items.updateOne(
          { _id: item._id, status: 'voorgesteld' },
          {
            $set: {
              status: 'uitgezonderd',
              uitzondering: {
                reden: u.reden,
                stap: stapNaam,
                door: door.doorWeergave,
                op: door.op,
                ...(u.archiefactiedatum ? { archiefactiedatum: u.archiefactiedatum } : {}),
              },
            },
            $unset: { _openZaak: '' },
          },
        );
        if (u.archiefactiedatum) await this.nieuweDatum(item.zaak, u.archiefactiedatum, caller);
      }
      this.deps.log.info({ lijst: uuid, stap: stapNaam, uitgezonderd: items.length, by: caller.clientId }, 'destruction list changed by a reviewer');
      return;
    }
    const laatste = lijst.stap === lijst.stappen.length - 1;
    if (laatste) await this.toetsBijGoedkeuring(uuid);
    await this.zet(lijst, ['ter_beoordeling'], laatste ? { status: 'goedgekeurd', goedgekeurdOp: door.op } : { stap: lijst.stap + 1 }, {
      beoordelingen: { stap: stapNaam, ...door, besluit: 'goedgekeurd', uitgezonderd: 0 },
    });
    this.deps.log.info({ lijst: uuid, stap: stapNaam, goedgekeurd: laatste, by: caller.clientId }, 'destruction list step approved');
  }

  /** The items of the exclusions, each a zaak on the list (else 400 naming it); a deelzaak goes with its hoofdzaak. */
  private async uitgezonderd(uuid: string, uitzonderingen: { zaak: string }[]): Promise<Item[]> {
    const z = this.zaken();
    const ids = uitzonderingen.map((u) => (UUID.test(u.zaak) ? u.zaak.toLowerCase() : z.zaken.uuidOf(u.zaak)));
    const found = new Map(
      (await this.items.find({ lijst: uuid, zaak: { $in: ids.filter((i): i is string => !!i) } }).toArray()).map((i) => [i.zaak, i]),
    );
    const params: InvalidParam[] = [];
    ids.forEach((id, i) => {
      const item = id ? found.get(id) : undefined;
      if (!item || item.status !== 'voorgesteld')
        params.push({
          name: `uitzonderingen.${i}.zaak`,
          code: 'niet-op-lijst',
          reason: `${uitzonderingen[i]!.zaak} staat niet (meer) op deze lijst.`,
        });
      else if (item.hoofdzaak && !ids.includes(item.hoofdzaak) && found.get(item.hoofdzaak)?.status !== 'uitgezonderd')
        params.push({
          name: `uitzonderingen.${i}.zaak`,
          code: 'deelzaak-niet-op-lijst',
          reason: `${uitzonderingen[i]!.zaak} is een deelzaak van een zaak op de lijst: zonder haar ging die hoofdzaak met haar mee. Zonder ook de hoofdzaak uit.`,
        });
    });
    // a hoofdzaak excluded takes nothing: its deelzaken may stay on the list
    if (params.length) throw ZgwError.validation(params, 'Niet elke uitzondering is een zaak op deze lijst.');
    return ids.map((id) => found.get(id!)!);
  }

  /** A reviewer's new archiefactiedatum for an excluded zaak: a change of the zaak, notified and in its trail. */
  private async nieuweDatum(zaakUuid: string, datum: string, caller: Caller): Promise<void> {
    const z = this.zaken();
    const zaak = await z.zaken.store.get(zaakUuid);
    if (!zaak) return;
    // (the store's own fields stay the store's: the events waiting in the zaak, its id and creation)
    const { _archief, _id, _created, _outbox, _pending, ...rest } = zaak as Zaak & { _outbox?: unknown; _pending?: unknown };
    const volgt = (_archief ?? []).filter((v) => v !== 'archiefactiedatum');
    await z.zaken.update(zaak, { ...rest, archiefactiedatum: datum, _archief: volgt } as ZaakDoc, z.zaken.ctx(caller, _id), 'partial_update');
  }

  /** Before the last approval: every zaak still on the list checked again (400 naming each that may not go now). */
  private async toetsBijGoedkeuring(uuid: string): Promise<void> {
    const items = await this.items.find({ lijst: uuid, status: 'voorgesteld' }).toArray();
    const z = this.zaken();
    const zaken = new Map((await z.zaken.store.getMany(items.map((i) => i.zaak))).map((d) => [d._id, d]));
    const erop = new Set(items.map((i) => i.zaak));
    const params: InvalidParam[] = [];
    const feiten: { _id: string; archiefactiedatum: string | null; archiefnominatie: string | null }[] = [];
    for (const item of items) {
      const zaak = zaken.get(item.zaak);
      let reden: Weigerreden | null = zaak ? eigenReden(zaak, opBewaring(zaak)) : 'bestaat-niet';
      // (a deelzaak not on the list that still exists would go with its hoofdzaak)
      const buiten = (zaak?._deelzaken ?? []).filter((d) => !erop.has(d));
      if (!reden && buiten.length && (await z.zaken.store.getMany(buiten)).length) reden = 'deelzaak-niet-op-lijst';
      if (reden) params.push({ name: `zaken.${item.identificatie}`, code: reden, reason: `${item.url}: ${TOELICHTING[reden]}` });
      else feiten.push({ _id: item._id, archiefactiedatum: zaak!.archiefactiedatum ?? null, archiefnominatie: zaak!.archiefnominatie ?? null });
    }
    if (params.length) throw ZgwError.validation(params, 'Niet elke zaak op de lijst kan nu vernietigd worden: zonder die zaken uit.');
    // what the workflow compares each zaak with: its facts as approved
    for (let i = 0; i < feiten.length; i += 500)
      await this.items.bulkWrite(
        feiten.slice(i, i + 500).map((f) => ({
          updateOne: { filter: { _id: f._id }, update: { $set: { archiefactiedatum: f.archiefactiedatum, archiefnominatie: f.archiefnominatie } } },
        })),
        { ordered: false },
      );
  }
}
