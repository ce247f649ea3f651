import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoClient, type Collection, type Document } from 'mongodb';
import { engineHome, repo } from './engines.helpers';

// The local store (local-store) as its own process on a free port with its own folder, for the tests
// that stop, kill, back up or restore it.

/** Fails the suite (never skips it) where no Java runs the store: scripts/engines.sh needs it too. */
export function needsJava(): void {
  try {
    execFileSync('java', ['-version'], { stdio: 'ignore' });
  } catch {
    throw new Error('these tests run the local store as its own process and need Java 17 (`java` on the PATH), as scripts/engines.sh does');
  }
}
export { repo };

/** The folder the engines script installed the store into (installing it when needed). */
export const storeHome = (): string => engineHome('mongo');

export class LocalStore {
  private proc?: ChildProcess;
  output = '';
  /** What the engine printed, one entry per run. */
  readonly runs: string[] = [];
  client?: MongoClient;

  constructor(
    private readonly home: string,
    readonly port: number,
    readonly dir = mkdtempSync(join(tmpdir(), 'zgw-store-')),
  ) {}

  get url() {
    return `mongodb://127.0.0.1:${this.port}`;
  }

  /** Starts the engine and waits until it answers (it opens its port only after reading its files back). */
  async start<T extends Document = Document>(env: Record<string, string> = {}): Promise<Collection<T>> {
    const proc = spawn(
      'java',
      [
        '-Xmx1g',
        '-XX:+UseSerialGC',
        '-cp',
        join(this.home, 'local-store.jar'),
        'zgw.store.MongoLauncher',
        '--port',
        String(this.port),
        '--dir',
        this.dir,
        '--fsync',
        'on',
      ],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, ZGW_MONGO_TTL_SECONDS: '1', ...env }, // the TTL sweeper every second (MongoDB's: 60 s)
      },
    );
    this.proc = proc;
    const log = (chunk: Buffer) => (this.output += chunk.toString());
    proc.stdout!.on('data', log);
    proc.stderr!.on('data', log);
    await new Promise<void>((resolve, reject) => {
      const check = () => (this.output.includes('MongoLauncher: listening') ? resolve() : undefined);
      proc.stdout!.on('data', check);
      proc.on('exit', (code) => reject(new Error(`the store exited (${code}) while starting:\n${this.output}`)));
    });
    this.client = await MongoClient.connect(this.url, { directConnection: true, retryWrites: false, serverSelectionTimeoutMS: 5000 });
    return this.client.db('t').collection<T>('docs');
  }

  /** Sends the signal and waits for the process to end; returns what it printed since its start. */
  async stop(signal: NodeJS.Signals): Promise<string> {
    const proc = this.proc!;
    const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
    proc.kill(signal);
    await exited;
    await this.client?.close(true).catch(() => undefined);
    const out = this.output;
    this.runs.push(out);
    this.output = '';
    return out;
  }

  cleanup() {
    this.proc?.kill('SIGKILL');
    rmSync(this.dir, { recursive: true, force: true });
  }
}

export const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
