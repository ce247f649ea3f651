import { randomUUID } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import type { OverdrachtOpdracht, Voortgang } from '@zgw/shared';
import type { Activities, Plan } from '../../src/overdracht/activities';
import { recordHistories, suiteEnvironment, WORKFLOWS } from '../temporal.helpers';

// The overdracht workflow in Temporal's test environment, its activities replaced by fakes that record what they were
// asked: the order of the steps, what a refusal, a permanent failure and a passing outage do. Each run's history can
// be kept for the replay test (ZGW_RECORD_HISTORIES=1 writes test/histories/overdracht-<case>.json).

type Overdracht = Pick<
  Activities,
  | 'meld'
  | 'valideer'
  | 'maakDoelzaak'
  | 'kopieerOnderdelen'
  | 'kopieerDocumenten'
  | 'kopieerBesluiten'
  | 'sluitDoelzaak'
  | 'verifieer'
  | 'koppelBron'
  | 'sluitBron'
  | 'antwoord'
  | 'compenseer'
>;

const PLAN: Plan = {
  doelZaaktype: 'http://doel.example/catalogi/api/v1/zaaktypen/1',
  rsin: '002220647',
  startdatum: '2026-01-05',
  typen: {},
  aantallen: { rollen: 2, documenten: 1 },
};
const DOELZAAK = 'http://doel.example/zaken/api/v1/zaken/2';

let env: TestWorkflowEnvironment;
suiteEnvironment((e) => (env = e));

function opdracht(): OverdrachtOpdracht {
  const uuid = randomUUID();
  return {
    overdracht: uuid,
    url: `http://127.0.0.1/overdrachten/api/v1/overdrachten/${uuid}`,
    zaak: 'http://bron.example/zaken/api/v1/zaken/1',
    zaakIdentificatie: 'ZAAK-2026-0000000001',
    doelregistratie: 'http://doel.example',
    richting: 'intern',
    pogingen: 3,
    wachttijdSeconden: 0.1,
    maxWachttijdSeconden: 0.2,
    hartslagSeconden: 1,
  };
}

/** Fake activities: each records its name; `overrides` replace some of them. */
function fakes(overrides: Partial<Overdracht> = {}) {
  const calls: string[] = [];
  const reports: Voortgang[] = [];
  const ok: Overdracht = {
    meld: async (_o, v) => void reports.push(v),
    valideer: async () => PLAN,
    maakDoelzaak: async () => DOELZAAK,
    kopieerOnderdelen: async () => ({ gemaakt: 2, rollen: {} }),
    kopieerDocumenten: async () => ({}),
    kopieerBesluiten: async () => 0,
    sluitDoelzaak: async () => true,
    verifieer: async () => 'gelijk',
    koppelBron: async () => undefined,
    sluitBron: async () => 'afgesloten',
    antwoord: async () => 'geen antwoord gevraagd',
    compenseer: async () => 'verwijderd',
  };
  const activities = Object.fromEntries(
    Object.entries({ ...ok, ...overrides }).map(([name, fn]) => [
      name,
      async (...args: unknown[]) => {
        if (name !== 'meld') calls.push(name);
        return (fn as (...a: unknown[]) => Promise<unknown>)(...args);
      },
    ]),
  );
  return { calls, reports, activities };
}

/** Runs one overdracht on a worker with these activities; keeps its history when asked to. */
async function run(name: string, activities: Record<string, unknown>): Promise<string> {
  const taskQueue = `test-${randomUUID()}`;
  const worker = await Worker.create({ connection: env.nativeConnection, taskQueue, workflowsPath: WORKFLOWS, activities });
  const o = opdracht();
  return worker.runUntil(async () => {
    const handle = await env.client.workflow.start('overdracht', { taskQueue, workflowId: `overdracht-${o.overdracht}`, args: [o] });
    const result = await handle.result();
    await recordHistories({ [`overdracht-${name}`]: handle });
    return result as string;
  });
}

const steps = (reports: Voortgang[]) => reports.filter((r) => r.stap && r.fase === 'einde').map((r) => r.stap);

test('a transfer runs its steps in order, the final status after the verification, and replies', async () => {
  const { calls, reports, activities } = fakes();
  expect(await run('afgerond', activities)).toBe('afgerond');
  expect(calls).toEqual([
    'valideer',
    'maakDoelzaak',
    'kopieerOnderdelen',
    'kopieerDocumenten',
    'kopieerBesluiten',
    'sluitDoelzaak',
    'verifieer',
    'koppelBron',
    'sluitBron',
    'antwoord',
  ]);
  expect(steps(reports)).toEqual([
    'gevalideerd',
    'doelzaak_aangemaakt',
    'onderdelen_gekopieerd',
    'documenten_gekopieerd',
    'besluiten_gekopieerd',
    'geverifieerd',
    'bron_gekoppeld',
    'bron_afgesloten',
    'antwoord_verstuurd',
  ]);
  expect(reports[0]).toEqual({ status: 'bezig' });
  expect(reports).toContainEqual({ doelZaak: DOELZAAK });
  expect(reports.find((r) => r.stap === 'gevalideerd' && r.fase === 'einde')?.toelichting).toBe('2 rollen, 1 documenten');
  expect(reports).toContainEqual({ status: 'afgerond', stap: 'antwoord_verstuurd', fase: 'start' });
}, 60_000);

test('a refusal ends the transfer geweigerd before anything is made, without compensation', async () => {
  const { calls, reports, activities } = fakes({
    valideer: async () => {
      throw ApplicationFailure.create({
        type: 'Weigering',
        message: 'zaaktype niet gekoppeld',
        nonRetryable: true,
        details: ['zaaktype_niet_gekoppeld'],
      });
    },
  });
  expect(await run('geweigerd', activities)).toBe('geweigerd');
  expect(calls).toEqual(['valideer', 'antwoord']);
  expect(reports).toContainEqual({
    status: 'geweigerd',
    weigering: { code: 'zaaktype_niet_gekoppeld', reden: 'zaaktype niet gekoppeld' },
    stap: 'antwoord_verstuurd',
    fase: 'start',
  });
}, 60_000);

test('a permanent failure after the copy began removes what was made and ends mislukt with the reason', async () => {
  const { calls, reports, activities } = fakes({
    kopieerDocumenten: async () => {
      throw ApplicationFailure.create({ type: 'Permanent', message: 'doel antwoordt 400: bestandsomvang ongeldig', nonRetryable: true });
    },
  });
  expect(await run('mislukt', activities)).toBe('mislukt');
  expect(calls).toEqual(['valideer', 'maakDoelzaak', 'kopieerOnderdelen', 'kopieerDocumenten', 'compenseer', 'antwoord']);
  const eind = reports.find((r) => r.status === 'mislukt');
  expect(eind?.fout).toContain('bestandsomvang ongeldig');
  expect(steps(reports)).toContain('gecompenseerd');
}, 60_000);

test('a technical failure is retried with backoff and the transfer goes on', async () => {
  let attempts = 0;
  const { calls, activities } = fakes({
    kopieerOnderdelen: async () => {
      if (++attempts < 3) throw new Error('ECONNRESET');
      return { gemaakt: 2, rollen: {} };
    },
  });
  expect(await run('hersteld', activities)).toBe('afgerond');
  expect(attempts).toBe(3);
  expect(calls.filter((c) => c === 'kopieerOnderdelen')).toHaveLength(3);
  expect(calls).not.toContain('compenseer');
}, 60_000);

test('technical failures beyond the retry limit compensate and end mislukt', async () => {
  const { calls, reports, activities } = fakes({
    verifieer: async () => {
      throw new Error('doel onbereikbaar');
    },
  });
  expect(await run('opgegeven', activities)).toBe('mislukt');
  expect(calls.filter((c) => c === 'verifieer')).toHaveLength(3);
  expect(calls).toContain('compenseer');
  expect(reports.find((r) => r.status === 'mislukt')?.fout).toContain('doel onbereikbaar');
}, 60_000);

test("an input naming only its doelregistratie's naam: every step after validation gets the id validation found", async () => {
  const ID = '6f1c8f1e-2b7a-4a53-9d0e-6b1d9c7f4a21';
  const gezien: Record<string, string | undefined> = {};
  const met = (name: string) => async (o: OverdrachtOpdracht) => void (gezien[name] = o.doelregistratieId);
  const { activities } = fakes({
    valideer: async (o) => {
      gezien.valideer = o.doelregistratieId;
      return { ...PLAN, doelregistratieId: ID };
    },
    maakDoelzaak: async (o) => (await met('maakDoelzaak')(o), DOELZAAK),
    kopieerOnderdelen: async (o) => (await met('kopieerOnderdelen')(o), { gemaakt: 0, rollen: {} }),
    kopieerDocumenten: async (o) => (await met('kopieerDocumenten')(o), {}),
    kopieerBesluiten: async (o) => (await met('kopieerBesluiten')(o), 0),
    sluitDoelzaak: async (o) => (await met('sluitDoelzaak')(o), false),
    verifieer: async (o) => (await met('verifieer')(o), 'gelijk'),
    koppelBron: async (o) => met('koppelBron')(o),
    sluitBron: async (o) => (await met('sluitBron')(o), 'open gelaten'),
  });
  expect(await run('met-id', activities)).toBe('afgerond');
  expect(gezien).toEqual({
    valideer: undefined,
    maakDoelzaak: ID,
    kopieerOnderdelen: ID,
    kopieerDocumenten: ID,
    kopieerBesluiten: ID,
    sluitDoelzaak: ID,
    verifieer: ID,
    koppelBron: ID,
    sluitBron: ID,
  });
}, 60_000);

test('a compensation after validation finds the doelregistratie by the id validation found too', async () => {
  const ID = '0b8e7d52-4c1f-4f0e-8a55-2f0a1c3e9b77';
  let gecompenseerd: string | undefined;
  const { activities } = fakes({
    valideer: async () => ({ ...PLAN, doelregistratieId: ID }),
    kopieerOnderdelen: async () => {
      throw ApplicationFailure.create({ type: 'Permanent', message: 'doel antwoordt 400', nonRetryable: true });
    },
    compenseer: async (o) => ((gecompenseerd = o.doelregistratieId), 'verwijderd'),
  });
  expect(await run('met-id-gecompenseerd', activities)).toBe('mislukt');
  expect(gecompenseerd).toBe(ID);
}, 60_000);
