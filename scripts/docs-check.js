#!/usr/bin/env node
// The documentation holds together (run by npm test, after the build):
//   - every link between README.md, CHANGELOG.md and docs/*.md points at a file that exists, and an `#anchor` at a
//     heading of that file (GitHub's heading ids);
//   - every file in docs/ is reached from the README's table of contents;
//   - every configuration key the services read (CONFIG_KEYS of shared/src/config.ts) is a row of
//     docs/configuration.md, and every row there names a key that is read (a configuration key, one a service reads
//     itself, such as OTEL_EXPORTER_OTLP_ENDPOINT, or one a library reads: AWS_*);
//   - the code map of docs/architecture.md names only folders that exist (from the root or within a service);
//   - the README stays one screen (at most README_MAX_LINES lines);
//   - docker-compose.yml and the Dockerfile start each service with the Node.js flags scripts/node-args.js gives it (as
//     `npm start` and the bench do).
// Prints each problem and `docs: N passed, N failed` (one check per link, key and rule); exits 1 on any problem.
const fs = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..');
const README_MAX_LINES = 150;
/** Keys documented in the configuration table that a library reads from the environment itself. */
const READ_BY_LIBRARIES = new Set(['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY']);

let passed = 0;
const problems = [];
const check = (ok, problem) => (ok ? passed++ : problems.push(problem));

/** GitHub's id of a heading: lower case, punctuation other than `-` and `_` dropped, spaces as `-`. */
const slug = (heading) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\- _]/gu, '')
    .replace(/ /g, '-');

/** The text of a markdown file without its fenced code blocks and inline code (links there are examples). */
function prose(text) {
  return text.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');
}

function anchorsOf(file) {
  const seen = new Map();
  const ids = new Set();
  for (const m of prose(fs.readFileSync(file, 'utf8')).matchAll(/^#{1,6} +(.+?) *#*$/gm)) {
    const base = slug(m[1]);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    ids.add(n === 0 ? base : `${base}-${n}`);
  }
  return ids;
}

const docsDir = path.join(root, 'docs');
const docs = fs
  .readdirSync(docsDir)
  .filter((f) => f.endsWith('.md'))
  .map((f) => path.join(docsDir, f));
const files = [path.join(root, 'README.md'), path.join(root, 'CHANGELOG.md'), ...docs];
const linkedFromReadme = new Set();

for (const file of files) {
  const name = path.relative(root, file);
  for (const m of prose(fs.readFileSync(file, 'utf8')).matchAll(/\]\(([^)\s]+)\)/g)) {
    const target = m[1];
    if (/^[a-z]+:/i.test(target)) continue; // http(s), mailto: outside the repository
    const [p, anchor] = target.split('#');
    const to = p ? path.resolve(path.dirname(file), p) : file;
    if (!fs.existsSync(to)) {
      check(false, `${name}: link to ${target}: no such file`);
      continue;
    }
    if (name === 'README.md') linkedFromReadme.add(to);
    if (anchor === undefined) check(true);
    else if (!to.endsWith('.md')) check(false, `${name}: link to ${target}: an anchor into a file that is not markdown`);
    else check(anchorsOf(to).has(anchor), `${name}: link to ${target}: ${path.relative(root, to)} has no heading #${anchor}`);
  }
}
for (const doc of docs) {
  check(linkedFromReadme.has(doc), `README.md: ${path.relative(root, doc)} is not in its table of contents`);
}

const { CONFIG_KEYS } = require(path.join(root, 'shared/dist/config.js'));
const table = fs.readFileSync(path.join(docsDir, 'configuration.md'), 'utf8');
const documented = new Set();
for (const row of table.split('\n').filter((l) => l.startsWith('| `'))) {
  for (const key of row.split('|')[1].matchAll(/`([A-Z][A-Z0-9_]*)`/g)) documented.add(key[1]);
}
for (const key of CONFIG_KEYS) check(documented.has(key), `docs/configuration.md: ${key} (shared/src/config.ts) is not documented`);
/** The sources of the services, for the keys they read themselves (`process.env.KEY`). */
const sources = ['shared/src', 'services/api/src', 'services/notifier/src', 'services/audit/src', 'services/transfer/src']
  .flatMap((dir) => fs.readdirSync(path.join(root, dir), { recursive: true }).map((f) => path.join(root, dir, String(f))))
  .filter((f) => f.endsWith('.ts'))
  .map((f) => fs.readFileSync(f, 'utf8'))
  .join('\n');
for (const key of documented) {
  check(
    CONFIG_KEYS.includes(key) || READ_BY_LIBRARIES.has(key) || sources.includes(`process.env.${key}`),
    `docs/configuration.md: ${key} is documented but no service reads it`,
  );
}

const readmeLines = fs.readFileSync(path.join(root, 'README.md'), 'utf8').split('\n').length - 1;
check(readmeLines <= README_MAX_LINES, `README.md: ${readmeLines} lines, more than one screen (${README_MAX_LINES})`);

const { NODE_ARGS } = require('./node-args');
/** The `node ... services/<name>/dist/main.js` command lines of a file, by service. */
const nodeCommands = (text) =>
  new Map(
    [...text.matchAll(/\[\s*(['"])node\1,([^\]]*?)\1services\/(\w+)\/dist\/main\.js\1\s*\]/g)].map((m) => [
      m[3],
      [...m[2].matchAll(/['"]([^'"]+)['"]/g)].map((f) => f[1]).join(' '),
    ]),
  );
const compose = nodeCommands(fs.readFileSync(path.join(root, 'docker-compose.yml'), 'utf8'));
const dockerfile = nodeCommands(fs.readFileSync(path.join(root, 'Dockerfile'), 'utf8'));
for (const name of ['api', 'notifier', 'audit', 'transfer']) {
  const flags = (NODE_ARGS[name] ?? []).join(' ');
  check(
    compose.get(name) === flags,
    `docker-compose.yml: the ${name} service runs with "${compose.get(name) ?? '(no node command)'}", scripts/node-args.js says "${flags}"`,
  );
}
check(
  dockerfile.get('api') === (NODE_ARGS.api ?? []).join(' '),
  `Dockerfile: the API runs with "${dockerfile.get('api') ?? '(no node command)'}", scripts/node-args.js says "${(NODE_ARGS.api ?? []).join(' ')}"`,
);

/**
 * The architecture document's code map names only folders that exist: every path in its code block and its inline
 * code (`common/auth/`, `services/transfer/src/`, `components/index.ts`) is a folder, or a file in a folder, that the
 * repository has. A path may be written from the repository's root or from within a service (`common/`, `admin/`,
 * `activities/`): it exists when a folder of the repository is it or ends in it; `<name>` stands for any one folder.
 */
const CODE_MAP = path.join(docsDir, 'architecture.md');
const SKIP_DIRS = new Set(['node_modules', 'dist', 'target', 'coverage', 'reports']);
/** Every folder of the repository below its root, as `a/b/` (hidden folders and build output left out). */
function foldersOf(dir, rel = '', out = []) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (!entry.isDirectory() || entry.name.startsWith('.') || SKIP_DIRS.has(entry.name)) continue;
    const sub = `${rel}${entry.name}/`;
    out.push(sub);
    foldersOf(path.join(dir, entry.name), sub, out);
  }
  return out;
}
/** The folders the code map section of a markdown text names (the section from its `Code map` heading to the next). */
function codeMapFolders(text) {
  const section = /^(#{1,6}) +Code map *$([\s\S]*?)(?=^#{1,6} |(?![\s\S]))/m.exec(text);
  if (!section) return undefined;
  const code = [...section[2].matchAll(/^```[^\n]*\n([\s\S]*?)^```/gm), ...section[2].matchAll(/`([^`\n]+)`/g)].map((m) => m[1]);
  const named = new Set();
  for (const text of code) {
    for (const m of text.matchAll(/(?<![\w/.<>:-])((?:[\w.<>-]+\/)+[\w.<>-]*)(?![\w/.<>-])/g)) {
      const p = m[1];
      const last = p.slice(p.lastIndexOf('/') + 1);
      // a path ending in a file (`index.ts`) names the folder it is in; one without an extension is a folder
      named.add(last === '' ? p : /\.\w+$/.test(last) ? p.slice(0, p.length - last.length) : `${p}/`);
    }
  }
  return [...named];
}
if (fs.existsSync(CODE_MAP)) {
  const named = codeMapFolders(fs.readFileSync(CODE_MAP, 'utf8'));
  check(named !== undefined, 'docs/architecture.md: no "Code map" heading (the code map is checked against the folders)');
  const folders = foldersOf(root);
  for (const folder of named ?? []) {
    const pattern = new RegExp(
      `(^|/)${folder
        .split(/<[^>/]+>/)
        .map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
        .join('[^/]+')}$`,
    );
    check(
      folders.some((f) => pattern.test(f)),
      `docs/architecture.md: the code map names ${folder}, but no folder of the repository is or ends in ${folder}: draw the folders as they are`,
    );
  }
}

for (const p of problems) console.log(p);
console.log(`docs: ${passed} passed, ${problems.length} failed`);
process.exit(problems.length ? 1 : 0);
