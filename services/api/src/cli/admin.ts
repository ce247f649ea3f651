import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Db } from 'mongodb';
import {
  ceSource,
  checkPiiKeys,
  connectMongo,
  createKafka,
  createLogger,
  forgetRetiredKeys,
  inTenant,
  loadConfig,
  piiFromConfig,
  type Config,
} from '@zgw/shared';
import { buildApp } from '../app';
import { Caller } from '../common/auth/auth';
import { announceClear } from '../common/storage/cache';
import { createDeps } from '../common/platform/deps';
import { flag } from './args';
import { IMPORT_COMPONENTS, ImportRuns } from '../admin/importen';
import { resealValues } from '../common/resources/pii-fields';
import { ZgwError } from '../common/http/errors';
import { Tenants } from '../common/auth/tenants';
import { moveInhoud } from '../components/documenten/inhoud-move';
import { inhoudStoreOf } from '../components/documenten/inhoud-store';
import { generatePassword } from '../admin/ui/passwords';
import { AdminSessions } from '../admin/ui/sessions';
import { AdminUsers } from '../admin/ui/users';
import { TenantRemoval } from '../admin/tenant-removal';

const USAGE = `usage: npm run admin -- <command>
  add <name> [--tenant <rsin>] [--password-stdin]
                                       create an administrator of the admin screens; prints a generated password
                                       once (or takes the first line of standard input). With --tenant: an
                                       administrator of that organisation only; without: of the whole platform
  password <name> [--password-stdin]   set a new password (generated, or from standard input); ends their sessions
  remove <name>                        remove an administrator and end their sessions
  reset-factor <name>                  remove an administrator's second factor (a lost phone) and end their
                                       sessions; their next login sets up a new one
  list                                 list the administrators (never passwords) and whether each has a second factor
  backup <dir>                         a consistent copy of the local store's data in <dir> (new or empty), taken
                                       while the platform runs; restore: bash scripts/engines.sh restore <dir>
  inhoud-migreren <gridfs|s3>          move the content of every document into that store (from the other): each file
                                       checked (size, SHA-256) before it leaves the source; resumable, with progress.
                                       Stop the API first; set INHOUD_STORE to the target before starting it again
  catalogus-export <uuid> <file.zip> [--tenant <rsin>]
                                       write a catalogus with all its types and their parts to a ZIP (Open Zaak's
                                       layout; docs/moving-in.md)
  catalogus-import <file.zip> [--nieuwe-uuids] [--dry-run] [--tenant <rsin>]
                                       import a catalogus ZIP (ours or Open Zaak's) into a tenant (default: the
                                       default tenant): all of it or nothing; UUIDs kept unless --nieuwe-uuids
  importeren --bron <url> --client-id <id> --secret <secret> [--tenant <rsin>] [--dry-run]
             [--zaaktype <identificatie>]... [--vanaf <datum>] [--tot <datum>] [--bronorganisatie <rsin>]
             [--zaken-url <url>] [--documenten-url <url>] [--besluiten-url <url>] [--catalogi-url <url>]
             [--gelijktijdig <n>] [--timeout <seconden>] [--verwijderen ja|nee] [--url-kaart <file.csv>]
                                       import another ZGW registration (its zaken, documents, besluiten) into a tenant
                                       (default: the default tenant) with its UUIDs and dates, run by the transfer
                                       worker; prints progress until it ends (docs/moving-in.md). A catalogus of the
                                       source that is not here comes first. --dry-run: what would be stored and what
                                       would fail, nothing written. --zaaktype, --vanaf, --tot, --bronorganisatie:
                                       only those zaken (by startdatum) with what is theirs, asked for with the
                                       source's filters. --gelijktijdig: requests to the source at once (default 4);
                                       --timeout: of one request (default from the source's latencies).
                                       --verwijderen: what the source deleted since the previous run of the same
                                       source is removed here (ja, the default) or only reported (nee).
                                       --url-kaart: write bron_url,onze_url of every object brought when it ends
  tenant-add <rsin> <naam>             create a tenant: an organisation this installation serves (its RSIN)
  tenant-list                          list the tenants with their numbers of zaken, documents and clients
  tenant-rename <old rsin> <new rsin>  give a tenant (e.g. the default tenant of an upgraded installation) its real
                                       RSIN: its data, clients and counts move along. Stop the API first
  tenant-remove <rsin> [--export <dir>] [--ja]
                                       an organisation leaves: with --export, first each of its catalogussen as a ZIP
                                       in <dir>; then, only with --ja, erase everything of it (clients, objects,
                                       content, audit trails, abonnementen, workflows, the tenant) and print what went
                                       per collection. Without --ja it prints what would go and erases nothing
  pii-rekey                            seal every personal identifier and secret with the newest PII key (ZGW_PII_KEYS), with
                                       progress; resumable; then says which older keys no value needs any more`;

async function readStdinLine(): Promise<string> {
  let data = '';
  for await (const chunk of process.stdin) data += String(chunk);
  return data.split(/\r?\n/)[0] ?? '';
}

/**
 * Asks the local store (local-store) for a copy of its files in `dir`, on its own machine. MongoDB has
 * no such command: there, mongodump or the provider's snapshots make backups.
 */
async function backup(db: Db, dir: string): Promise<number> {
  try {
    const r = await db.command({ zgwBackup: 1, dir: resolve(dir) });
    console.log(
      JSON.stringify({
        dir: r.dir,
        snapshotBytes: r.snapshotBytes,
        journalBytes: r.journalBytes,
        millis: r.millis,
        restore: `bash scripts/engines.sh restore ${r.dir}`,
      }),
    );
    return 0;
  } catch (e) {
    if ((e as { code?: number }).code === 59) {
      console.error('admin: this MongoDB is not the local store; back it up with mongodump (or the snapshots of its provider)');
    } else {
      console.error(`admin: backup failed: ${(e as Error).message}`);
    }
    return 1;
  }
}

/**
 * Reseals every identifier with the newest key until a pass finds nothing left (writes meanwhile are sealed with it
 * already), then takes the older versions out of the database's key list: they can leave the configuration.
 */
async function rekey(db: Db): Promise<number> {
  const pii = piiFromConfig(loadConfig(), createLogger('admin'));
  // every key that sealed values here must be given (to open them), and the newest is recorded
  await checkPiiKeys(db, pii);
  let total = 0;
  for (let pass = 1; ; pass++) {
    const { found, changed } = await resealValues(db, pii, (n) => console.log(JSON.stringify({ pass, resealed: total + n })));
    total += changed;
    if (found === 0) break;
    if (pass === 5) {
      console.error(`admin: pii-rekey: ${found} documents kept changing under it; run it again`);
      return 1;
    }
  }
  const retired = await forgetRetiredKeys(db, pii);
  console.log(JSON.stringify({ resealed: total, key: pii.current, retired }));
  if (retired.length) console.log(`no value needs PII key ${retired.join(', ')} any more: it can leave ZGW_PII_KEYS (keep a copy with old backups)`);
  return 0;
}

/** Moves the documents' content into `target` (gridfs or s3), from the other store. */
async function migrate(db: Db, config: Config, target: string | undefined): Promise<number> {
  if (target !== 'gridfs' && target !== 's3') {
    console.error('admin: inhoud-migreren wants the store to move to: gridfs or s3');
    return 2;
  }
  const log = createLogger('admin', 'warn');
  const to = inhoudStoreOf(target, config, db, log);
  const from = inhoudStoreOf(target === 's3' ? 'gridfs' : 's3', config, db, log);
  await Promise.all([from.prepare(), to.prepare()]);
  const started = Date.now();
  let last = 0;
  const result = await moveInhoud(from, to, (p) => {
    if (Date.now() - last < 1000 && p.failed === 0) return;
    last = Date.now();
    console.log(JSON.stringify({ moved: p.moved, bytes: p.bytes, failed: p.failed, seconds: Math.round((Date.now() - started) / 1000) }));
  });
  console.log(JSON.stringify({ ...result, from: from.kind, to: to.kind, seconds: Math.round((Date.now() - started) / 1000) }));
  if (result.failed) console.error(`admin: ${result.failed} files did not compare after the copy and stay in ${from.kind}; run it again`);
  else console.log(`every document's content is in ${to.kind} now: start the API with INHOUD_STORE=${to.kind}`);
  return result.failed ? 1 : 0;
}

/** The platform's components in this process, for a command; log lines go to stderr (stdout is its answer). */
const cliDeps = (db: Db, config: Config) =>
  createDeps(config, db, createLogger('admin', config.LOG_LEVEL === 'silent' ? 'silent' : 'warn', process.stderr));

/** The command's caller: a platform administrator acting within `tenant`. */
const cliCaller = (tenant: string) =>
  new Caller('beheer:cli', 'cli', 'npm run admin', { label: 'Beheer', heeftAlleAutorisaties: true }, tenant, true);

/**
 * catalogus-export and catalogus-import (see USAGE): the platform's own Catalogi API in this process, acting in the
 * tenant as a platform administrator. Its events wait in the outbox for the running API's relay (or its next start);
 * the running instances drop their cached catalogi at once.
 */
async function catalogusCommand(db: Db, config: Config, cmd: string, args: string[]): Promise<number> {
  const tenant = args.includes('--tenant') ? flag(args, '--tenant') : config.ZGW_DEFAULT_TENANT;
  const files = args.filter((a, i) => !a.startsWith('--') && args[i - 1] !== '--tenant');
  const deps = cliDeps(db, config);
  const app = await buildApp({ deps });
  try {
    if (!tenant || !(await deps.tenants.get(tenant))) {
      console.error(`admin: no tenant "${tenant ?? ''}" (see tenant-list)`);
      return 1;
    }
    const exchange = deps.components.catalogi!.uitwisseling;
    const caller = cliCaller(tenant);
    return await inTenant(tenant, async () => {
      if (cmd === 'catalogus-export') {
        const zip = await exchange.export(files[0]!);
        writeFileSync(files[1]!, zip);
        console.log(JSON.stringify({ catalogus: files[0], file: resolve(files[1]!), bytes: zip.length }));
        return 0;
      }
      const opts = { nieuweUuids: args.includes('--nieuwe-uuids'), dryRun: args.includes('--dry-run') };
      const report = await exchange.import(new Uint8Array(readFileSync(files[0]!)), opts, caller);
      if (!opts.dryRun) {
        const kafka = createKafka(config.KAFKA_BROKERS, `${config.KAFKA_CLIENT_ID}-cli`);
        await announceClear(kafka, config.KAFKA_TOPIC_PREFIX, ceSource(config), ['catalogi']).catch((err: Error) =>
          console.error(`admin: the running instances were not told (${err.message}); they read the new catalogus within CACHE_TTL_MS`),
        );
      }
      console.log(JSON.stringify({ tenant, ...report }));
      return 0;
    });
  } catch (err) {
    const reasons = err instanceof ZgwError ? (err.invalidParams ?? []).map((p) => `\n  ${p.name}: ${p.reason}`).join('') : '';
    console.error(`admin: ${(err as Error).message}${reasons}`);
    return 1;
  } finally {
    await app.close();
  }
}

/**
 * importeren (see USAGE): starts a run as a platform administrator, then prints its progress (one JSON line every
 * five seconds: the counts, and the source's requests per second and p95 latency) until it ends; 0 when it ended
 * `afgerond` without failures.
 */
async function importCommand(db: Db, config: Config, args: string[]): Promise<number> {
  const tenant = flag(args, '--tenant') ?? config.ZGW_DEFAULT_TENANT;
  const deps = cliDeps(db, config);
  const runs = new ImportRuns(deps);
  try {
    if (!(await deps.tenants.get(tenant))) {
      console.error(`admin: no tenant "${tenant}" (see tenant-list)`);
      return 1;
    }
    await runs.ensureIndexes();
    const apis = Object.fromEntries(IMPORT_COMPONENTS.map((c) => [c, flag(args, `--${c}-url`)]).filter(([, v]) => v !== undefined));
    const caller = cliCaller(tenant);
    const verwijderen = flag(args, '--verwijderen');
    if (verwijderen !== undefined && verwijderen !== 'ja' && verwijderen !== 'nee') {
      console.error('admin: --verwijderen wants ja or nee');
      return 2;
    }
    const kaart = flag(args, '--url-kaart');
    if (args.includes('--url-kaart') && (!kaart || kaart.startsWith('--'))) {
      console.error('admin: --url-kaart wants the file to write the URL map (CSV) to');
      return 2;
    }
    const aanvraag = {
      bron: flag(args, '--bron'),
      clientId: flag(args, '--client-id'),
      secret: flag(args, '--secret'),
      apis,
      dryRun: args.includes('--dry-run'),
      zaaktypen: args.flatMap((a, i) => (a === '--zaaktype' && args[i + 1] ? [args[i + 1]!] : [])),
      vanaf: flag(args, '--vanaf'),
      tot: flag(args, '--tot'),
      bronorganisatie: flag(args, '--bronorganisatie'),
      ...(flag(args, '--gelijktijdig') ? { gelijktijdig: Number(flag(args, '--gelijktijdig')) } : {}),
      ...(flag(args, '--timeout') ? { timeout: Number(flag(args, '--timeout')) } : {}),
      ...(verwijderen ? { verwijderen: verwijderen === 'ja' } : {}),
    };
    let run = await runs.start(aanvraag, caller);
    console.log(JSON.stringify({ import: run._id, tenant, bron: run.bron, dryRun: run.dryRun }));
    while (run.status === 'bezig' || run.status === 'gepauzeerd') {
      await new Promise((r) => setTimeout(r, 5000));
      run = await runs.get(run._id);
      const { status, tellingen, tempo } = await runs.view(run);
      // (the source's pace: whether it or this platform is the bottleneck)
      const bron = tempo && { verzoekenPerSeconde: tempo.verzoekenPerSeconde, p95Ms: tempo.p95Ms, wachtend: tempo.wachtend };
      console.log(JSON.stringify({ status, ...(bron ? { bron } : {}), tellingen }));
    }
    const view = await runs.view(run);
    console.log(JSON.stringify(view));
    if (kaart) {
      const regels: string[] = [];
      for await (const deel of runs.urlKaart(run)) regels.push(deel);
      writeFileSync(kaart, regels.join(''));
      console.log(JSON.stringify({ urlKaart: kaart, regels: regels.join('').split('\n').length - 2 }));
    }
    return view.status === 'afgerond' && !view.fouten.length ? 0 : 1;
  } catch (err) {
    const reasons = err instanceof ZgwError ? (err.invalidParams ?? []).map((p) => `\n  ${p.name}: ${p.reason}`).join('') : '';
    console.error(`admin: ${(err as Error).message}${reasons}`);
    return 1;
  } finally {
    await deps.temporal.close();
  }
}

/**
 * tenant-remove (see USAGE): exports first (a failed export erases nothing), then, confirmed, the removal; one JSON
 * line. Exit 2 for an unknown RSIN, the default tenant, or no --ja.
 */
async function tenantRemoveCommand(db: Db, config: Config, args: string[]): Promise<number> {
  const [rsin] = args;
  const dir = args.includes('--export') ? flag(args, '--export') : undefined;
  if (args.includes('--export') && (!dir || dir.startsWith('--'))) {
    console.error('admin: --export wants the directory to write the catalogus ZIPs to');
    return 2;
  }
  const deps = cliDeps(db, config);
  const clearCaches = async (regions: string[]) => {
    const kafka = createKafka(config.KAFKA_BROKERS, `${config.KAFKA_CLIENT_ID}-cli`);
    const timeout = new Promise<never>((_, reject) => setTimeout(() => reject(new Error('timeout')), 10_000).unref());
    await Promise.race([announceClear(kafka, config.KAFKA_TOPIC_PREFIX, ceSource(config), regions), timeout]).catch((err: Error) =>
      console.error(`admin: the running instances were not told (${err.message}); they forget the organisation within CACHE_TTL_MS`),
    );
  };
  const removal = new TenantRemoval({ ...deps, clearCaches });
  let tenant;
  try {
    tenant = await removal.tenant(rsin);
  } catch (err) {
    console.error(`admin: ${(err as Error).message}`);
    return 2;
  }
  const exports: { catalogus: string; file: string; bytes: number }[] = [];
  if (dir) {
    const app = await buildApp({ deps });
    try {
      mkdirSync(dir, { recursive: true });
      const exchange = deps.components.catalogi!.uitwisseling;
      for (const uuid of await removal.catalogussen(tenant._id)) {
        const zip = await inTenant(tenant._id, () => exchange.export(uuid));
        const file = resolve(join(dir, `catalogus-${uuid}.zip`));
        writeFileSync(file, zip);
        exports.push({ catalogus: uuid, file, bytes: zip.length });
      }
    } catch (err) {
      console.error(`admin: the export failed (${(err as Error).message}): nothing of ${tenant._id} is erased`);
      return 1;
    } finally {
      await app.close();
    }
  }
  if (!args.includes('--ja')) {
    console.log(JSON.stringify({ rsin: tenant._id, naam: tenant.naam, exports, teVerwijderen: await removal.plan(tenant._id) }));
    console.error(`admin: nothing is erased: add --ja to erase organisation ${tenant._id} (${tenant.naam}) for good`);
    return 2;
  }
  try {
    console.log(JSON.stringify({ ...(await removal.remove(tenant._id)), exports }));
    return 0;
  } catch (err) {
    console.error(`admin: ${(err as Error).message}`);
    return 1;
  }
}

/** tenant-add, tenant-list and tenant-rename (see USAGE). */
async function tenantCommand(db: Db, config: Config, cmd: string, args: string[]): Promise<number> {
  const tenants = new Tenants(db, config.ZGW_DEFAULT_TENANT);
  try {
    if (cmd === 'tenant-add') {
      const t = await tenants.add(args[0], args.slice(1).join(' '));
      console.log(JSON.stringify({ rsin: t._id, naam: t.naam }));
    } else if (cmd === 'tenant-list') {
      for (const t of await tenants.list()) console.log(`${t._id}\t${t.naam}\tcreated ${t.createdAt.toISOString()}`);
    } else {
      const moved = await tenants.rename(args[0]!, args[1]!);
      console.log(JSON.stringify(moved));
      if (args[0] === config.ZGW_DEFAULT_TENANT)
        console.error(`admin: ${args[0]} was the default tenant: set ZGW_DEFAULT_TENANT=${args[1]} before starting the API again`);
    }
    return 0;
  } catch (err) {
    const reasons = err instanceof ZgwError ? (err.invalidParams ?? []).map((p) => ` (${p.name}: ${p.reason})`).join('') : '';
    console.error(`admin: ${(err as Error).message}${reasons}`);
    return 1;
  }
}

async function main(args: string[]): Promise<number> {
  const [cmd, name] = args;
  if (
    !cmd ||
    (!['list', 'pii-rekey', 'tenant-list', 'importeren'].includes(cmd) && !name) ||
    (['tenant-add', 'tenant-rename', 'catalogus-export'].includes(cmd) && !args[2]) ||
    ![
      'add',
      'password',
      'remove',
      'reset-factor',
      'list',
      'backup',
      'pii-rekey',
      'inhoud-migreren',
      'tenant-add',
      'tenant-list',
      'tenant-rename',
      'tenant-remove',
      'catalogus-export',
      'catalogus-import',
      'importeren',
    ].includes(cmd)
  ) {
    console.error(USAGE);
    return 2;
  }
  const config = loadConfig();
  const mongo = await connectMongo(config.MONGODB_URL, config.MONGODB_DB);
  try {
    if (cmd === 'backup') return await backup(mongo.db, name!);
    if (cmd === 'pii-rekey') return await rekey(mongo.db);
    if (cmd === 'inhoud-migreren') return await migrate(mongo.db, config, name);
    if (cmd === 'tenant-remove') return await tenantRemoveCommand(mongo.db, config, args.slice(1));
    if (cmd.startsWith('tenant-')) return await tenantCommand(mongo.db, config, cmd, args.slice(1));
    if (cmd.startsWith('catalogus-')) return await catalogusCommand(mongo.db, config, cmd, args.slice(1));
    if (cmd === 'importeren') return await importCommand(mongo.db, config, args.slice(1));
    const users = new AdminUsers(mongo.db);
    const sessions = new AdminSessions(mongo.db, 60_000, 60_000);
    if (cmd === 'list') {
      for (const u of await users.list()) {
        const factor = u.secondFactor ? `second factor set, ${u.recoveryCodesLeft} recovery codes left` : 'no second factor yet';
        const of = u.tenant ? `tenant ${u.tenant}` : 'platform';
        console.log(`${u.name}\t${of}\tcreated ${u.createdAt.toISOString()}\tpassword changed ${u.passwordChangedAt.toISOString()}\t${factor}`);
      }
      return 0;
    }
    if (cmd === 'reset-factor') {
      const reset = await users.resetSecondFactor(name!);
      await sessions.destroyAllOf(name!);
      console.log(JSON.stringify({ name, reset }));
      return reset ? 0 : 1;
    }
    if (cmd === 'remove') {
      const removed = await users.remove(name!);
      await sessions.destroyAllOf(name!);
      console.log(JSON.stringify({ name, removed }));
      return removed ? 0 : 1;
    }
    const given = args.includes('--password-stdin') ? await readStdinLine() : undefined;
    const password = given ?? generatePassword();
    if (cmd === 'add') {
      const tenant = flag(args, '--tenant');
      if (args.includes('--tenant') && !(tenant && (await new Tenants(mongo.db, config.ZGW_DEFAULT_TENANT).get(tenant)))) {
        console.error(`admin: no tenant "${tenant ?? ''}" (see tenant-list)`);
        return 1;
      }
      if (!(await users.create(name!, password, tenant))) {
        console.error(`admin: "${name}" exists already (use: password ${name})`);
        return 1;
      }
    } else {
      if (!(await users.setPassword(name!, password))) {
        console.error(`admin: no administrator "${name}"`);
        return 1;
      }
      await sessions.destroyAllOf(name!);
    }
    // A generated password is shown this once; one given on stdin is not echoed.
    console.log(JSON.stringify({ name, ...(given === undefined ? { password } : {}), login: `${config.PUBLIC_BASE_URL}/admin/` }));
    return 0;
  } finally {
    await mongo.client.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err) => {
    console.error('admin:', err instanceof Error ? err.message : err);
    process.exit(1);
  },
);
