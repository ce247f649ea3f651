// Open Zaak itself, for scripts/openzaak/check.js and the import-openzaak bench (scripts/bench/import-openzaak.js):
// whether it runs, its Django shell running scripts/openzaak/orm.py, and its selectielijst pointed at this platform's
// own Referentielijsten API.
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const root = path.join(__dirname, '..', '..');
const OZ_DIR = process.env.OZ_DIR ?? path.join(os.homedir(), '.cache', 'zgw-peers', 'openzaak');
const OPENZAAK_SH = process.env.OPENZAAK_SH ?? path.join(root, '..', 'shared', 'peers', 'openzaak', 'openzaak.sh');

/** Whether Open Zaak's uWSGI runs (openzaak.sh status). */
function running() {
  const status = execFileSync('bash', [OPENZAAK_SH, 'status'], { encoding: 'utf8' });
  return /running/.test(status) && !/not running/.test(status);
}

/** Runs scripts/openzaak/orm.py in Open Zaak's shell with these OZC_ variables; its `OZC {...}` line. */
function ozShell(vars) {
  const out = execFileSync('bash', [OPENZAAK_SH, 'manage', 'shell'], {
    input: fs.readFileSync(path.join(__dirname, 'orm.py')),
    env: { ...process.env, ...vars },
    encoding: 'utf8',
    stdio: ['pipe', 'pipe', 'pipe'],
    maxBuffer: 64 << 20,
  });
  const line = out.split('\n').find((l) => l.startsWith('OZC '));
  if (!line) throw new Error(`openzaak.sh manage shell (${vars.OZC_ACTION}): no answer\n${out.slice(-2000)}`);
  return JSON.parse(line.slice(4));
}

/**
 * Open Zaak's selectielijst is the Referentielijsten API at `selectielijst` (its api_root): the service, and Open
 * Zaak's cached copy of that API's OpenAPI document (which its image build downloads).
 */
async function pointSelectielijst(selectielijst) {
  const oas = await fetch(`${selectielijst}/schema/openapi.yaml`).then((r) => r.text());
  for (const alias of ['selectielijst-1.0.0', 'vrl-0.5.6']) fs.writeFileSync(path.join(OZ_DIR, 'src', 'cache', `${alias}.yaml`), oas);
  return ozShell({ OZC_ACTION: 'configure', OZC_SELECTIELIJST: selectielijst });
}

module.exports = { OZ_DIR, OPENZAAK_SH, running, ozShell, pointSelectielijst };
