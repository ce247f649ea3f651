import { connectMongo, loadConfig } from '@zgw/shared';
import { generatePassword } from '../admin/ui/passwords';
import { AdminSessions } from '../admin/ui/sessions';
import { AdminUsers } from '../admin/ui/users';

const USAGE = `usage: npm run admin -- <command>
  add <name> [--password-stdin]        create an administrator of the admin screens; prints a generated password
                                       once (or takes the first line of standard input)
  password <name> [--password-stdin]   set a new password (generated, or from standard input); ends their sessions
  remove <name>                        remove an administrator and end their sessions
  list                                 list the administrators (never passwords)`;

async function readStdinLine(): Promise<string> {
  let data = '';
  for await (const chunk of process.stdin) data += String(chunk);
  return data.split(/\r?\n/)[0] ?? '';
}

async function main(args: string[]): Promise<number> {
  const [cmd, name] = args;
  if (!cmd || (cmd !== 'list' && !name) || !['add', 'password', 'remove', 'list'].includes(cmd)) {
    console.error(USAGE);
    return 2;
  }
  const config = loadConfig();
  const mongo = await connectMongo(config.MONGODB_URL, config.MONGODB_DB);
  try {
    const users = new AdminUsers(mongo.db);
    const sessions = new AdminSessions(mongo.db, 60_000, 60_000);
    if (cmd === 'list') {
      for (const u of await users.list()) console.log(`${u.name}\tcreated ${u.createdAt.toISOString()}\tpassword changed ${u.passwordChangedAt.toISOString()}`);
      return 0;
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
      if (!(await users.create(name!, password))) {
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
