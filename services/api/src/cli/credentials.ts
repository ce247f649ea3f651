import { ceSource, checkPiiKeys, connectMongo, createKafka, createLogger, loadConfig, piiFromConfig, type Config } from '@zgw/shared';
import { ensureAllRights } from '../bootstrap';
import { flag } from './args';
import { AUTORISATIES_CACHE, CREDENTIALS_CACHE } from '../common/auth/auth';
import { announceClear } from '../common/storage/cache';
import { Credentials, reservedClientIds } from '../common/auth/credentials';
import { Tenants } from '../common/auth/tenants';

const USAGE = `usage: npm run credentials -- <command>
  add <clientId> [--secret S] [--all-rights] [--label L] [--tenant RSIN]
                                                            register a client id (secret generated when not given)
                                                            for a tenant (default: ZGW_DEFAULT_TENANT)
  remove <clientId>                                         remove a client id's secret
  list                                                      list registered client ids (never secrets)`;

async function main(args: string[]): Promise<number> {
  const [cmd, clientId] = args;
  if (!cmd || (cmd !== 'list' && !clientId)) {
    console.error(USAGE);
    return 2;
  }
  const config = loadConfig();
  const mongo = await connectMongo(config.MONGODB_URL, config.MONGODB_DB);
  try {
    // secrets are stored sealed, with the key the API uses (refused when it is not the one values here were sealed with)
    const pii = piiFromConfig(config, createLogger('credentials'));
    await checkPiiKeys(mongo.db, pii);
    const creds = new Credentials(mongo.db, pii, config.ZGW_DEFAULT_TENANT, reservedClientIds(config));
    if (cmd === 'add') {
      const named = flag(args, '--tenant');
      const tenant = named ?? config.ZGW_DEFAULT_TENANT;
      if (named && !(await new Tenants(mongo.db, config.ZGW_DEFAULT_TENANT).get(named))) {
        console.error(`credentials: tenant ${named} does not exist (npm run admin -- tenant-add ${named} <naam>)`);
        return 2;
      }
      const secret = await creds.set(clientId!, tenant, flag(args, '--secret'));
      const created = args.includes('--all-rights') ? await ensureAllRights(mongo.db, clientId!, tenant, flag(args, '--label') ?? clientId) : false;
      await tellRunningInstances(config);
      console.log(JSON.stringify({ clientId, tenant, secret, allRightsApplicatieCreated: created }));
    } else if (cmd === 'remove') {
      const removed = await creds.remove(clientId!);
      await tellRunningInstances(config);
      console.log(JSON.stringify({ clientId, removed }));
    } else if (cmd === 'list') {
      for (const c of await creds.list()) console.log(`${c.clientId}\t${c.tenant}\t${c.createdAt.toISOString()}`);
    } else {
      console.error(USAGE);
      return 2;
    }
    return 0;
  } finally {
    await mongo.client.close();
  }
}

/** Running API instances cache secrets and applicaties; without Kafka they see the change after CACHE_TTL_MS. */
async function tellRunningInstances(config: Config): Promise<void> {
  const kafka = createKafka(config.KAFKA_BROKERS, `${config.KAFKA_CLIENT_ID}-cli`);
  const timeout = new Promise<never>((_, reject) => setTimeout(() => reject(new Error('timeout')), 10_000).unref());
  try {
    await Promise.race([announceClear(kafka, config.KAFKA_TOPIC_PREFIX, ceSource(config), [CREDENTIALS_CACHE, AUTORISATIES_CACHE]), timeout]);
  } catch (err) {
    console.error(
      `credentials: Kafka not reachable (${(err as Error).message}); running API instances apply this within CACHE_TTL_MS (${config.CACHE_TTL_MS} ms)`,
    );
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err) => {
    console.error('credentials:', err instanceof Error ? err.message : err);
    process.exit(1);
  },
);
