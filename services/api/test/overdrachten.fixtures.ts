import { spawn, type ChildProcess } from 'node:child_process';
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { besluittypeBody, create, iotBody, publish, resultaattypeBody, zaaktypeBody, type Referentielijsten } from './catalogi.fixtures';
import { startApp, type TestApp } from './harness';
import { freePort } from './local-store.helpers';
import { bootstrapTransferClient } from '../src/bootstrap';
import { createLogger } from '@zgw/shared';

export const OVERDRACHTEN = '/overdrachten/api/v1/overdrachten';
export const TRANSFER_SECRET = 'the transfer worker secret of the tests';

/** A free TCP port on 127.0.0.1 (the worker reaches the API over real HTTP). */
export { freePort };

/** Whether an overdracht ended in one of `statussen` with its reply step done: its workflow has finished. */
export const afgelopen = (o: Record<string, any>, statussen = ['afgerond', 'mislukt', 'geweigerd', 'geannuleerd']): boolean =>
  statussen.includes(o.status) && o.stappen.some((s: any) => s.stap === 'antwoord_verstuurd' && s.einde);

/** Log lines (JSON) of the API and the worker, in memory. */
export class LogLines {
  readonly lines: Record<string, unknown>[] = [];
  readonly sink = new Writable({
    write: (chunk, _enc, done) => {
      this.add(String(chunk));
      done();
    },
  });
  add(text: string): void {
    for (const l of text.split('\n').filter(Boolean)) {
      try {
        const line = JSON.parse(l) as Record<string, unknown>;
        this.lines.push(line);
        if (process.env.ZGW_TEST_WORKER_OUTPUT && line.temporal) process.stderr.write(`${l}\n`); // the Temporal runtime's own lines
      } catch {
        if (process.env.ZGW_TEST_WORKER_OUTPUT) process.stderr.write(`${l}\n`);
      }
    }
  }
  of(zaakIdentificatie: string): Record<string, unknown>[] {
    return this.lines.filter((l) => l.ZaakIdentificatie === zaakIdentificatie);
  }
}

/** An API listening on a free port, with the transfer client registered and its own task queue. */
export async function startListeningApp(env: Record<string, string>, logs: LogLines): Promise<TestApp> {
  const port = await freePort();
  const t = await startApp(
    {
      PORT: String(port),
      PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
      TRANSFER_SECRET,
      TRANSFER_TASK_QUEUE: `test-${port}-${Date.now()}`,
      LOG_LEVEL: 'info',
      ...env,
    },
    { logTo: logs.sink },
  );
  await bootstrapTransferClient(t.mongo.db, t.deps.pii, t.config, createLogger('test', 'silent'));
  await t.app.listen({ port, host: '127.0.0.1' });
  return t;
}

/** The API base URLs of an instance, as a doelregistratie with route extern names them. */
export const apisOf = (t: TestApp) => ({
  zakenApi: `${t.config.PUBLIC_BASE_URL}/zaken/api/v1`,
  catalogiApi: `${t.config.PUBLIC_BASE_URL}/catalogi/api/v1`,
  documentenApi: `${t.config.PUBLIC_BASE_URL}/documenten/api/v1`,
  besluitenApi: `${t.config.PUBLIC_BASE_URL}/besluiten/api/v1`,
});

/** The transfer worker as it runs in production (services/transfer/dist), for this app's database and task queue. */
export function startWorker(t: Pick<TestApp, 'config'>, logs: LogLines, env: Record<string, string> = {}): ChildProcess {
  const main = join(__dirname, '..', '..', 'transfer', 'dist', 'main.js');
  const child = spawn(process.execPath, [main], {
    env: {
      ...process.env,
      MONGODB_URL: t.config.MONGODB_URL,
      MONGODB_DB: t.config.MONGODB_DB,
      TEMPORAL_ADDRESS: t.config.TEMPORAL_ADDRESS,
      PUBLIC_BASE_URL: t.config.PUBLIC_BASE_URL,
      TRANSFER_SECRET,
      TRANSFER_TASK_QUEUE: t.config.TRANSFER_TASK_QUEUE,
      TRANSFER_BACKOFF_SECONDS: '1',
      TRANSFER_MAX_BACKOFF_SECONDS: '2',
      TRANSFER_METRICS_PORT: '0',
      LOG_LEVEL: 'info',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d) => logs.add(String(d)));
  child.stderr!.on('data', (d) => logs.add(String(d)));
  return child;
}

export async function stopWorker(child: ChildProcess | undefined, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (!child || child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill(signal);
  await exited;
}

export interface Typen {
  catalogus: string;
  zaaktype: string;
  statustypen: { begin: string; eind: string };
  roltype: string;
  resultaattype: string;
  eigenschap: string;
  iot: string;
  besluittype: string;
}

/**
 * A catalogus of organisation `rsin` with one published zaaktype `identificatie` and every type a transfer maps:
 * statustypen begin/eind, roltype Initiator, resultaattype Afgehandeld, eigenschap kleur, informatieobjecttype
 * bijlage (of the zaaktype) and besluittype vergunning (of the zaaktype, laid down in a bijlage).
 */
export async function typen(t: TestApp, sl: Referentielijsten, rsin: string, identificatie: string): Promise<Typen> {
  const cat = (await create(t, 'catalogussen', { domein: `O${Math.floor(Math.random() * 10000)}`, rsin, contactpersoonBeheerNaam: 'Beheer' }))
    .url as string;
  const iot = await create(t, 'informatieobjecttypen', iotBody(cat, { omschrijving: 'bijlage' }));
  await publish(t, iot.url);
  const bt = await create(t, 'besluittypen', besluittypeBody(cat, { omschrijving: 'vergunning', informatieobjecttypen: ['bijlage'] }));
  await publish(t, bt.url);
  const zt = await create(t, 'zaaktypen', zaaktypeBody(cat, { identificatie, selectielijstProcestype: sl.procestype, besluittypen: [bt.url] }));
  const part = (collection: string, body: Record<string, unknown>) => create(t, collection, { zaaktype: zt.url, ...body });
  const begin = await part('statustypen', { omschrijving: 'begin', volgnummer: 1 });
  const eind = await part('statustypen', { omschrijving: 'eind', volgnummer: 2 });
  const roltype = await part('roltypen', { omschrijving: 'Initiator', omschrijvingGeneriek: 'initiator' });
  const resultaattype = await part('resultaattypen', resultaattypeBody(sl));
  const eigenschap = await part('eigenschappen', {
    naam: 'kleur',
    definitie: 'kleur',
    specificatie: { formaat: 'tekst', lengte: '20', kardinaliteit: '1', waardenverzameling: [] },
  });
  await create(t, 'zaaktype-informatieobjecttypen', { zaaktype: zt.url, informatieobjecttype: 'bijlage', volgnummer: 1, richting: 'inkomend' });
  await publish(t, zt.url);
  return {
    catalogus: cat,
    zaaktype: zt.url,
    statustypen: { begin: begin.url, eind: eind.url },
    roltype: roltype.url,
    resultaattype: resultaattype.url,
    eigenschap: eigenschap.url,
    iot: iot.url,
    besluittype: bt.url,
  };
}

/**
 * The network between the transfer worker and an API, under the test's control: requests can be cut (the socket
 * closed: the caller sees no answer, as when the system is down), held up, or cut from a given request on.
 */
export class Netwerk {
  private down = false;
  /** Cuts the network at the first request this matches (and from then on). */
  breekBij?: (req: IncomingMessage) => boolean;
  vertraging?: { match: (req: IncomingMessage) => boolean; ms: number };
  geknipt = 0;
  /** Every request that reached the API over the network: `METHOD path`. */
  readonly verzoeken: string[] = [];

  constructor(t: TestApp) {
    const server = t.app.server;
    const handlers = server.listeners('request') as ((req: IncomingMessage, res: ServerResponse) => void)[];
    server.removeAllListeners('request');
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      this.verzoeken.push(`${req.method} ${String(req.url).split('?')[0]}`);
      if (this.breekBij?.(req)) {
        this.down = true;
        this.breekBij = undefined;
      }
      if (this.down) {
        this.geknipt++;
        req.socket.destroy();
        return;
      }
      const pass = () => handlers.forEach((h) => h.call(server, req, res));
      if (this.vertraging?.match(req)) setTimeout(pass, this.vertraging.ms);
      else pass();
    });
  }

  uit(): void {
    this.down = true;
  }

  /** The network back, and no cut armed any more. */
  aan(): void {
    this.down = false;
    this.breekBij = undefined;
  }
}

/** A receiver of replies (antwoordUrl): collects the JSON bodies POSTed to it. */
export class Ontvanger {
  readonly ontvangen: Record<string, any>[] = [];
  private readonly server: Server = createHttpServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      this.ontvangen.push(JSON.parse(body));
      res.writeHead(204).end();
    });
  });
  url = '';

  async start(): Promise<this> {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as { port: number }).port}/antwoord`;
    return this;
  }

  voor(overdracht: string): Record<string, any> | undefined {
    return this.ontvangen.find((o) => o.uuid === overdracht);
  }

  close(): Promise<void> {
    return new Promise((r) => this.server.close(() => r()));
  }
}
