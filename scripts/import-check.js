#!/usr/bin/env node
// The shape of the code base, checked over the TypeScript compiler's own module resolution (run by npm test):
//   - no import circle, anywhere in shared/ and services/*/ (src and test);
//   - a ZGW component (services/api/src/components/<name>/) imports only its own files, shared and common/, what is
//     written once for every component, by concern (common/platform/: the resource engine, the store and what every
//     component is built from; common/auth/; common/audit/; common/contracts/: OpenAPI; common/web/: the server's own
//     pages): what several components need lives there, and a component reaches another's data through an interface
//     in common/platform/links.ts;
//   - common/ imports no component, and neither imports the application around them (admin/, reference/, cli/, the
//     entry files app.ts, main.ts, bootstrap.ts).
// Type-only imports count: a circle of types is still a circle for the reader.
// Prints each offence and `imports: N passed, N failed` (files without an offence, offences); exits 1 on any.
const path = require('node:path');
const fs = require('node:fs');
const ts = require('typescript');

const root = path.join(__dirname, '..');
const PACKAGES = ['shared', 'services/api', 'services/notifier', 'services/audit', 'services/transfer'];
const COMPONENTS = path.join(root, 'services/api/src/components') + path.sep;
const API = path.join(root, 'services/api/src') + path.sep;
const COMMON = path.join(API, 'common') + path.sep;
const isCommon = (f) => f.startsWith(COMMON);
/** What a component or common/ may not import: the application around them. */
const isApplication = (f) => f.startsWith(API) && !isCommon(f) && !f.startsWith(COMPONENTS);
const options = { module: ts.ModuleKind.CommonJS, moduleResolution: ts.ModuleResolutionKind.Node10, allowJs: false, resolveJsonModule: true };

function filesOf(dir) {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' || e.name === 'dist' ? [] : filesOf(p);
    return /\.tsx?$/.test(e.name) && !e.name.endsWith('.d.ts') ? [p] : [];
  });
}

const files = PACKAGES.flatMap((p) => ['src', 'test'].flatMap((d) => filesOf(path.join(root, p, d))));
const known = new Set(files);
const sharedIndex = path.join(root, 'shared/src/index.ts');

/** The project files a file imports (relative imports and @zgw/shared; packages from node_modules left out). */
function importsOf(file) {
  const info = ts.preProcessFile(fs.readFileSync(file, 'utf8'), true, true);
  const out = new Set();
  for (const ref of info.importedFiles) {
    if (ref.fileName === '@zgw/shared') {
      out.add(sharedIndex);
      continue;
    }
    if (!ref.fileName.startsWith('.')) continue;
    const resolved = ts.resolveModuleName(ref.fileName, file, options, ts.sys).resolvedModule;
    const target = resolved && path.resolve(resolved.resolvedFileName);
    if (target && known.has(target)) out.add(target);
    else if (!target) offences.push(`${rel(file)}: cannot resolve ${ref.fileName}`);
  }
  return [...out];
}

const rel = (f) => path.relative(root, f);
const componentOf = (f) => (f.startsWith(COMPONENTS) ? f.slice(COMPONENTS.length).split(path.sep)[0] : undefined);
const offences = [];
const graph = new Map(files.map((f) => [f, importsOf(f)]));

for (const [file, targets] of graph) {
  const from = componentOf(file);
  for (const target of targets) {
    const to = componentOf(target);
    if (from && to && from !== to && !from.endsWith('.ts') && !to.endsWith('.ts')) {
      offences.push(`${rel(file)} imports ${rel(target)}: a component imports only common/, shared and its own files`);
    }
    if (isCommon(file) && to) offences.push(`${rel(file)} imports ${rel(target)}: common/ imports no component`);
    if ((from || isCommon(file)) && isApplication(target))
      offences.push(`${rel(file)} imports ${rel(target)}: components and common/ import nothing of the application around them`);
  }
}

// Tarjan's strongly connected components: each one of more than one file (or a file importing itself) is a circle.
let counter = 0;
const index = new Map();
const low = new Map();
const stack = [];
const onStack = new Set();
function visit(v) {
  index.set(v, counter);
  low.set(v, counter++);
  stack.push(v);
  onStack.add(v);
  for (const w of graph.get(v)) {
    if (!index.has(w)) {
      visit(w);
      low.set(v, Math.min(low.get(v), low.get(w)));
    } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), index.get(w)));
  }
  if (low.get(v) === index.get(v)) {
    const scc = [];
    let w;
    do {
      w = stack.pop();
      onStack.delete(w);
      scc.push(w);
    } while (w !== v);
    if (scc.length > 1 || graph.get(v).includes(v)) offences.push(`import circle of ${scc.length} files: ${scc.map(rel).sort().join(', ')}`);
  }
}
for (const f of files) if (!index.has(f)) visit(f);

for (const o of offences) console.log(`  ${o}`);
const named = new Set(offences.flatMap((o) => files.filter((f) => o.includes(rel(f)))));
console.log(`imports: ${files.length - named.size} passed, ${offences.length} failed`);
process.exit(offences.length ? 1 : 0);
