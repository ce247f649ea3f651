#!/usr/bin/env node
// The OpenAPI fidelity check: every served document, in every version, compared with the standard's own file as a
// client generated from that file sees it. Per operation (path + method, HEAD included): the operationId, every
// parameter (name, in, required, enum), the writable request fields with their required lists, and the response
// fields. Prints `oas-fidelity: N passed, N failed` (one check per operation and kind), then each difference; exits 1
// on any. What the platform may add: the optional `Api-Version` request header.
// Usage: node scripts/oas-fidelity.js --base http://127.0.0.1:8000 --specs ../shared/specs [--only zaken@1.7.0] [--verbose]
const fs = require('node:fs');
const path = require('node:path');
const { parse } = require('yaml');

/** Each component's served versions and the standard's file of each (the tag files for the defaults). */
const VERSIONS = [
  ['zaken', '1.5.1', 'zaken-1.5.1.yaml'],
  ['zaken', '1.7.0', 'zaken-1.7.0.yaml'],
  ['catalogi', '1.3.1', 'catalogi-1.3.1.yaml'],
  ['catalogi', '1.3.3', 'catalogi-1.3.3.yaml'],
  ['documenten', '1.5.0', 'documenten-1.5.0.yaml'],
  ['documenten', '1.7.0', 'documenten-1.7.0.yaml'],
  ['besluiten', '1.0.2', 'besluiten-1.0.2.yaml'],
  ['besluiten', '1.1.0', 'besluiten-1.1.0.yaml'],
  ['notificaties', '1.0.0', 'notificaties-1.0.0.yaml'],
  ['notificaties', '1.0.1', 'notificaties-1.0.1.yaml'],
  ['autorisaties', '1.1.0', 'autorisaties-1.1.0.yaml'],
];
/**
 * Where the standard's file contradicts the standard's own behaviour, and clients follow the behaviour: the check
 * names these on every run instead of failing on them.
 */
const CONTRADICTIONS = {
  'autorisaties@1.1.0 GET /applicaties/consumer response':
    'the file declares a list; the reference implementation, Open Zaak and the ZGW client libraries answer and read one applicatie',
};
/** Parameters the platform adds to every operation of a component with several versions. */
const ADDED_PARAMETERS = new Set(['header:api-version']);
const METHODS = ['get', 'head', 'post', 'put', 'patch', 'delete'];

function arg(name) {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
}
const base = (arg('--base') ?? 'http://127.0.0.1:8000').replace(/\/$/, '');
const specs = arg('--specs') ?? path.join(__dirname, '..', '..', 'shared', 'specs');
const only = arg('--only');
const verbose = process.argv.includes('--verbose');

/**
 * A document with its `$ref`s resolvable: local ones, and the relative ones of the gemma-zaken tree
 * (`../../../../catalogi/ztc/1.3.x/1.3.2/openapi.yaml#/...`), which name files of the same folder.
 */
class Doc {
  constructor(root, name, load) {
    this.root = root;
    this.name = name;
    this.load = load;
  }
  resolve(node) {
    let doc = this;
    const seen = new Set();
    while (node && typeof node.$ref === 'string') {
      const [file, pointer] = node.$ref.split('#');
      if (file) doc = doc.load(file);
      const key = `${doc.name}#${pointer}`;
      if (seen.has(key)) throw new Error(`circular $ref ${key}`);
      seen.add(key);
      node = pointer
        .split('/')
        .slice(1)
        .reduce((n, p) => n?.[p.replace(/~1/g, '/').replace(/~0/g, '~')], doc.root);
      if (node === undefined) throw new Error(`unresolved $ref ${key}`);
    }
    return { node, doc };
  }
}

function specLoader(dir) {
  const cache = new Map();
  const load = (ref) => {
    const m = /(zaken|catalogi|documenten|besluiten|notificaties|autorisaties)\/\w+\/(?:[\dx.]+\/)?(\d+\.\d+\.\d+)\/openapi\.yaml$/.exec(ref);
    const file = m ? `${m[1]}-${m[2]}.yaml` : ref;
    if (!cache.has(file)) cache.set(file, new Doc(parse(fs.readFileSync(path.join(dir, file), 'utf8'), { maxAliasCount: -1 }), file, load));
    return cache.get(file);
  };
  return load;
}

/**
 * How many levels of `_expand` the check follows: expanded objects embed each other in cycles (a zaaktype its
 * catalogus, the catalogus its zaaktypen), so the comparison stops at the same level on both sides.
 */
const EXPAND_LEVELS = 2;

/**
 * The fields of a schema as `path -> what` entries: every property (request bodies: the writable ones, with each
 * object's required list less its read-only fields). A discriminator's variants add their fields to the object.
 */
function fields(doc, schema, opts, prefix = '', out = new Map(), depth = 0) {
  if (!schema || depth > 40) return out;
  const { node, doc: d } = doc.resolve(schema);
  const inner = { ...opts, variants: false };
  if (node.allOf) for (const s of node.allOf) fields(d, s, inner, prefix, out, depth + 1);
  // The alternatives of a oneOf/anyOf add their fields; their required lists are each alternative's own.
  for (const key of ['oneOf', 'anyOf']) {
    for (const s of node[key] ?? []) for (const [k, v] of fields(d, s, inner, prefix, new Map(), depth + 1)) if (!k.includes('!required')) out.set(k, v);
  }
  if (node.items) fields(d, node.items, { ...opts, variants: true }, `${prefix}[]`, out, depth + 1);
  const props = node.properties ?? {};
  // A free-form object (no properties, any additional ones): a client takes whatever fields come.
  if (!Object.keys(props).length && !node.allOf && node.additionalProperties !== undefined && node.additionalProperties !== false)
    out.set(`${prefix}!free`, 'any fields');
  const readOnly = new Set();
  for (const [name, raw] of Object.entries(props)) {
    const { node: p } = d.resolve(raw);
    const ro = raw.readOnly || p.readOnly;
    if (ro) readOnly.add(name);
    if (opts.writable && ro) continue;
    out.set(`${prefix}.${name}`, 'field');
    if (name === '_expand' && prefix.split('._expand').length > EXPAND_LEVELS) continue;
    fields(d, raw, { ...opts, variants: true }, `${prefix}.${name}`, out, depth + 1);
  }
  const required = (node.required ?? []).filter((r) => !(opts.writable && readOnly.has(r)));
  if (opts.writable && required.length) {
    const prev = out.get(`${prefix}!required`);
    out.set(`${prefix}!required`, [...new Set([...(prev ? prev.split(',') : []), ...required])].sort().join(','));
  }
  const mapping = node.discriminator && (node.discriminator.mapping ?? implicitMapping(d, schema.$ref));
  if (mapping && opts.variants !== false) {
    // A client sees each variant's fields on the object (its required list is the variant's business).
    for (const target of Object.values(mapping)) {
      for (const [k, v] of fields(d, { $ref: target }, inner, prefix, new Map(), depth + 1)) if (!k.includes('!required')) out.set(k, v);
    }
  }
  return out;
}

/** A discriminator without a mapping: the schemas that extend this one (allOf), each named by its value. */
function implicitMapping(doc, ref) {
  if (!ref?.startsWith('#/components/schemas/')) return undefined;
  const mapping = {};
  for (const [name, s] of Object.entries(doc.root.components?.schemas ?? {})) {
    if ((s.allOf ?? []).some((part) => part.$ref === ref)) mapping[name] = `#/components/schemas/${name}`;
  }
  return mapping;
}

/** What a client generated from the document sees of one operation. */
function operationView(doc, pathItem, method) {
  const op = pathItem[method];
  const params = new Map();
  for (const raw of [...(pathItem.parameters ?? []), ...(op.parameters ?? [])]) {
    const { node: p, doc: d } = doc.resolve(raw);
    const schema = p.schema ? d.resolve(p.schema).node : {};
    const items = schema.items ? d.resolve(schema.items).node : undefined;
    // (Zaken 1.5.1 writes the ordering values as one nested list: a client reads the values.)
    const en = (schema.enum ?? items?.enum)?.flat();
    const key = `${p.in}:${p.in === 'header' ? p.name.toLowerCase() : p.name}`;
    params.set(key, `required=${Boolean(p.required || p.in === 'path')}${en ? ` enum=${[...en].filter((e) => e !== null).sort().join('|')}` : ''}`);
  }
  let request = new Map();
  const content = op.requestBody ? doc.resolve(op.requestBody).node.content ?? {} : {};
  for (const [type, media] of Object.entries(content)) {
    const sub = fields(doc, media.schema, { writable: true, variants: true });
    for (const [k, v] of sub) request.set(`${type}${k}`, v);
  }
  const response = new Map();
  const ok = Object.keys(op.responses ?? {}).find((s) => /^2\d\d$/.test(s));
  if (ok && method !== 'head') {
    const { node: r, doc: d } = doc.resolve(op.responses[ok]);
    for (const [type, media] of Object.entries(r.content ?? {})) {
      if (!/json/.test(type)) continue;
      const sub = fields(d, media.schema, { writable: false, variants: true });
      for (const [k, v] of sub) if (!k.endsWith('!required')) response.set(k, v);
    }
  }
  return { operationId: op.operationId, params, request, response };
}

/**
 * The differences between what the standard's file and the served document declare. Allowed besides `allowed`:
 * fields inside an object the file leaves free-form, and an `_expand` where the file declares none (the 1.5 files
 * declare the `expand` parameter but not what it adds).
 */
function compareMaps(kind, standard, served, allowed = new Set()) {
  const diffs = [];
  const free = [...standard.keys()].filter((k) => k.endsWith('!free')).map((k) => k.slice(0, -'!free'.length));
  const extraAllowed = (k) => {
    if (allowed.has(k) || free.some((f) => k.startsWith(`${f}.`) || k.startsWith(`${f}!`) || k.startsWith(`${f}[]`))) return true;
    const expand = /^(.*?)\._expand(\.|$|!)/.exec(k);
    return Boolean(expand && !standard.has(`${expand[1]}._expand`));
  };
  for (const [k, v] of standard) {
    if (k.endsWith('!free')) continue;
    if (!served.has(k)) diffs.push(`${kind} ${k} missing (standard: ${v})`);
    else if (served.get(k) !== v) diffs.push(`${kind} ${k}: served ${served.get(k)}, standard ${v}`);
  }
  for (const [k, v] of served) if (!standard.has(k) && !k.endsWith('!free') && !extraAllowed(k)) diffs.push(`${kind} ${k} not in the standard (served: ${v})`);
  return diffs;
}

async function servedDocument(component, version) {
  const url = `${base}/${component}/api/v1/schema/openapi.json`;
  const res = await fetch(url, { headers: { 'Api-Version': version } });
  if (!res.ok) throw new Error(`${url} with Api-Version ${version}: ${res.status}`);
  return res.json();
}

async function main() {
  const load = specLoader(specs);
  let passed = 0;
  const failures = [];
  const noted = [];
  const check = (name, diffs) => {
    if (diffs.length && CONTRADICTIONS[name]) noted.push(`${name}: ${CONTRADICTIONS[name]}`);
    if (diffs.length && !CONTRADICTIONS[name]) failures.push([name, diffs]);
    else passed += 1;
    if (verbose) console.log(`${diffs.length ? 'FAIL' : 'ok  '} ${name}`);
  };
  for (const [component, version, file] of VERSIONS) {
    const label = `${component}@${version}`;
    if (only && !only.split(',').includes(label) && !only.split(',').includes(component)) continue;
    const standard = load(file);
    let served;
    try {
      served = await servedDocument(component, version);
      if (served.info?.version !== version) throw new Error(`the document served for ${version} says ${served.info?.version}`);
    } catch (err) {
      check(`${label} document`, [err.message]);
      continue;
    }
    const mine = new Doc(served, `${label} (served)`, () => {
      throw new Error('a served document refers outside itself');
    });
    const ops = (paths) => Object.entries(paths ?? {}).flatMap(([p, item]) => METHODS.filter((m) => item[m]).map((m) => [p, m]));
    const servedOps = new Set(ops(served.paths).map(([p, m]) => `${m.toUpperCase()} ${p}`));
    for (const [p, m] of ops(standard.root.paths)) {
      const name = `${label} ${m.toUpperCase()} ${p}`;
      if (!servedOps.delete(`${m.toUpperCase()} ${p}`)) {
        check(`${name} operation`, ['not served']);
        continue;
      }
      const want = operationView(standard, standard.root.paths[p], m);
      const have = operationView(mine, served.paths[p], m);
      check(`${name} operationId`, want.operationId === have.operationId ? [] : [`served ${have.operationId}, standard ${want.operationId}`]);
      check(`${name} parameters`, compareMaps('parameter', want.params, have.params, ADDED_PARAMETERS));
      check(`${name} request`, compareMaps('request', want.request, have.request));
      check(`${name} response`, compareMaps('response', want.response, have.response));
    }
    for (const extra of servedOps) check(`${label} ${extra} operation`, ['served, not in the standard']);
  }
  console.log(`oas-fidelity: ${passed} passed, ${failures.length} failed`);
  for (const n of noted) console.log(`  as the standard behaves, not as its file says: ${n}`);
  for (const [name, diffs] of failures) {
    console.log(`  ${name}`);
    for (const d of diffs.slice(0, verbose ? Infinity : 12)) console.log(`    ${d}`);
    if (!verbose && diffs.length > 12) console.log(`    ... ${diffs.length - 12} more`);
  }
  process.exit(failures.length ? 1 : 0);
}

main().catch((err) => {
  console.log('oas-fidelity: 0 passed, 1 failed');
  console.log(`  ${err.stack}`);
  process.exit(1);
});
