#!/usr/bin/env node
// The shape of the code base, checked over the TypeScript compiler's own module resolution (run by npm test):
//   - no import circle, anywhere in shared/ and services/*/ (src and test);
//   - a ZGW component (services/api/src/components/<name>/) imports only its own files, shared and common/, what is
//     written once for every component: what several components need lives there, and a component reaches another's
//     data through an interface in common/platform/links.ts;
//   - common/ is layers, one folder each, and a file imports only its own layer and the layers below it (LAYERS,
//     bottom first): storage/ (the store, its batchers, keyset pages, stored bytes, the outbox relay, caches), http/
//     (ZGW problems, validation, pagination, URLs, the OpenAPI documents, the HTML pages), auth/ (callers, credentials,
//     tokens, rate limits, the organisations), audit/ (the read trail and its spool), resources/ (the parts a resource
//     is declared and shown with: schema parts, rules, personal-data fields, the render cache, expand and fields),
//     platform/ (the route framework, the resource engine, the dependency container, what components offer each
//     other, the audit trail's endpoints, the Temporal client);
//   - common/ imports no component, and neither imports the application around them (admin/, reference/, cli/, the
//     entry files app.ts, main.ts, bootstrap.ts);
//   - the transfer worker (services/transfer/src) has one folder per Temporal feature (overdracht/, importen/, ...),
//     its tests mirrored under services/transfer/test/<feature>/: a feature imports no other feature, and common/
//     (the activity helpers every feature shares) imports none; only the worker's entry and its indexes
//     (workflows.ts, activities.ts) import them all;
//   - the API imports nothing of the worker's package (the workflows' input and output types are shared/'s).
// Type-only imports count: a circle of types is still a circle for the reader.
// Prints each offence, the counts of upward imports in common/ and of imports between transfer features, and
// `imports: N passed, N failed` (files without an offence, offences); exits 1 on any.
const path = require('node:path');
const fs = require('node:fs');
const ts = require('typescript');

/** The repository (IMPORT_CHECK_ROOT: another tree, for the check's own test). */
const root = process.env.IMPORT_CHECK_ROOT ?? path.join(__dirname, '..');
const PACKAGES = ['shared', 'services/api', 'services/notifier', 'services/audit', 'services/transfer'];
const COMPONENTS = path.join(root, 'services/api/src/components') + path.sep;
const API = path.join(root, 'services/api/src') + path.sep;
const COMMON = path.join(API, 'common') + path.sep;
const isCommon = (f) => f.startsWith(COMMON);
/** The layers of common/, bottom first. */
const LAYERS = ['storage', 'http', 'auth', 'audit', 'resources', 'platform'];
const TRANSFER = path.join(root, 'services/transfer') + path.sep;
/** What every transfer feature shares (not a feature). */
const TRANSFER_COMMON = 'common';
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
/** common/'s layer of a file: its folder's name ('' for a file in common/ itself). */
const layerOf = (f) => {
  const parts = f.slice(COMMON.length).split(path.sep);
  return parts.length > 1 ? parts[0] : '';
};
/** The transfer feature of a file of the worker's src/ or test/ (its first folder there), or undefined. */
const featureOf = (f) => {
  if (!f.startsWith(TRANSFER)) return undefined;
  const parts = f.slice(TRANSFER.length).split(path.sep); // src|test, <feature>, ...
  return parts.length > 2 && parts[1] !== TRANSFER_COMMON ? parts[1] : undefined;
};
const isTransferCommon = (f) => f.startsWith(TRANSFER) && f.slice(TRANSFER.length).split(path.sep)[1] === TRANSFER_COMMON;
let upward = 0;
let betweenFeatures = 0;
for (const f of files.filter(isCommon)) {
  const layer = layerOf(f);
  if (!LAYERS.includes(layer))
    offences.push(`${rel(f)}: common/ holds only its layers (${LAYERS.join(', ')}); a file goes into the lowest its imports allow`);
}
const graph = new Map(files.map((f) => [f, importsOf(f)]));

for (const [file, targets] of graph) {
  const from = componentOf(file);
  for (const target of targets) {
    const to = componentOf(target);
    if (from && to && from !== to && !from.endsWith('.ts') && !to.endsWith('.ts')) {
      offences.push(`${rel(file)} imports ${rel(target)}: a component imports only common/, shared and its own files`);
    }
    if (isCommon(file) && to) offences.push(`${rel(file)} imports ${rel(target)}: common/ imports no component`);
    if (isCommon(file) && isCommon(target)) {
      const a = LAYERS.indexOf(layerOf(file));
      const b = LAYERS.indexOf(layerOf(target));
      if (a >= 0 && b > a) {
        upward++;
        offences.push(`${rel(file)} imports ${rel(target)}: an upward import in common/ (${LAYERS.join(' < ')})`);
      }
    }
    const [fa, fb] = [featureOf(file), featureOf(target)];
    if (fb && fa !== fb && (fa || isTransferCommon(file))) {
      betweenFeatures++;
      offences.push(`${rel(file)} imports ${rel(target)}: a transfer feature imports no other, and common/ none (what both need goes into common/)`);
    }
    if (file.startsWith(API) && target.startsWith(TRANSFER))
      offences.push(`${rel(file)} imports ${rel(target)}: the API imports nothing of the worker (its workflows' types are shared/'s)`);
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
console.log(`common/ layers (${LAYERS.join(' < ')}): ${upward} upward imports`);
console.log(
  `transfer features (${[...new Set(files.map(featureOf).filter(Boolean))].sort().join(', ')}): ${betweenFeatures} imports between features`,
);
const named = new Set(offences.flatMap((o) => files.filter((f) => o.includes(rel(f)))));
console.log(`imports: ${files.length - named.size} passed, ${offences.length} failed`);
process.exit(offences.length ? 1 : 0);
