#!/usr/bin/env node
// A real Open Zaak as the source of the registration import (issue 63). Needs Open Zaak 1.21.0 running (`bash ../shared/peers/openzaak/openzaak.sh start`), the engines (MongoDB,
// Temporal) and the build (services/api/dist, services/transfer/dist). It
//   1. starts this platform's API and transfer worker on a fresh database (port OZCHECK_PORT, default 18260);
//   2. points Open Zaak's selectielijst at the platform's own Referentielijsten API (ReferentieLijstConfig's Service,
//      and Open Zaak's cached copy of that API's OpenAPI document, which its image build downloads) and empties it;
//   3. fills it through its own APIs (scripts/openzaak/fill.js: a catalogus with published zaaktypen, zaken with their
//      parts, documents of several versions, gebruiksrechten, besluiten, a deelzaak, relevante andere zaken, and
//      Open Zaak's audit trail of all that) and by its ORM (zaken without an audit trail: scripts/openzaak/orm.py);
//   4. runs `npm run admin -- importeren` from it: a dry run, a run limited to one zaaktype, a whole run and a second
//      whole run, and checks after each what is here: the counts per collection, every object under its UUID with
//      its fields as Open Zaak gives them (its URLs made ours), each document version's content by SHA-256, the audit
//      trail entries by UUID, and that the second run made nothing twice.
// Prints the failures, then one line `openzaak-import: N passed, N failed`; exits 1 on any failure.
// Env: OZ_URL (http://127.0.0.1:8300), OZ_CLIENT, OZ_SECRET (openzaak.sh's), OZ_DIR (~/.cache/zgw-peers/openzaak),
// OPENZAAK_SH (../shared/peers/openzaak/openzaak.sh), OZCHECK_PORT, OZCHECK_LOGS (a directory for the logs),
// OZCHECK_KEEP=1 keeps the database.
const { spawn } = require('node:child_process');
const { createHash, randomBytes } = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { client } = require('./http');
const { fill } = require('./fill');
const { OPENZAAK_SH, running, ozShell, pointSelectielijst } = require('./openzaak');
const { NODE_ARGS } = require('../node-args');

const root = path.join(__dirname, '..', '..');
const OZ = (process.env.OZ_URL ?? 'http://127.0.0.1:8300').replace(/\/$/, '');
const OZ_CLIENT = process.env.OZ_CLIENT ?? 'openzaak-bron';
const OZ_SECRET = process.env.OZ_SECRET ?? 'openzaak-bron-secret-0123456789abcdef';
const PORT = Number(process.env.OZCHECK_PORT ?? 18260);
const BASE = `http://127.0.0.1:${PORT}`;
const STAMP = `${Date.now().toString(36)}${randomBytes(2).toString('hex')}`;
const LOGS = process.env.OZCHECK_LOGS ?? fs.mkdtempSync(path.join(os.tmpdir(), 'openzaak-check-'));
const CLIENT = 'openzaak-check';
const CLIENT_SECRET = randomBytes(24).toString('hex');
const PLATFORM_ENV = {
  PORT: String(PORT),
  PUBLIC_BASE_URL: BASE,
  MONGODB_DB: `oz_import_${STAMP}`,
  KAFKA_TOPIC_PREFIX: `ozimp-${STAMP}-`,
  TRANSFER_TASK_QUEUE: `ozimp-${STAMP}`,
  TRANSFER_SECRET: randomBytes(24).toString('hex'),
  TRANSFER_API_URL: BASE,
  TRANSFER_METRICS_PORT: '0',
  ZGW_CLIENTS: `${CLIENT}:${CLIENT_SECRET}:all`,
  LOG_LEVEL: 'warn',
};

// ---------------------------------------------------------------------------------------------------------------------
// checks

const results = { passed: 0, failed: 0, failures: [] };
function check(name, ok, detail = '') {
  if (ok) results.passed++;
  else {
    results.failed++;
    results.failures.push(`${name}${detail ? `: ${detail}` : ''}`);
  }
  return ok;
}
const log = (msg) => console.log(`openzaak-import: ${msg}`);

// ---------------------------------------------------------------------------------------------------------------------
// the platform and Open Zaak

function startProcess(name, file, args = []) {
  const out = fs.openSync(path.join(LOGS, `${name}.log`), 'a');
  const child = spawn(process.execPath, [...args, file], { cwd: root, stdio: ['ignore', out, out], env: { ...process.env, ...PLATFORM_ENV } });
  child.on('exit', (code, signal) => {
    if (!child.stopping) log(`${name} exited (${code ?? signal}); its log: ${path.join(LOGS, `${name}.log`)}`);
  });
  return child;
}

async function stopProcess(child) {
  if (!child || child.exitCode !== null) return;
  child.stopping = true;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

async function waitFor(url, seconds) {
  for (let i = 0; i < seconds; i++) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not yet
    }
    await new Promise((r) => setTimeout(r, 1000));
  }
  throw new Error(`${url} did not answer within ${seconds} s`);
}

/** `npm run admin -- importeren` against Open Zaak; the run as it ended (the command's last line) and its exit code. */
function importeren(extra, name) {
  const args = ['services/api/dist/cli/admin.js', 'importeren', '--bron', OZ, '--client-id', OZ_CLIENT, '--secret', OZ_SECRET, ...extra];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: root, env: { ...process.env, ...PLATFORM_ENV }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('exit', (code) => {
      fs.writeFileSync(path.join(LOGS, `import-${name}.log`), `${stdout}\n${stderr}`);
      const lines = stdout
        .trim()
        .split('\n')
        .filter((l) => l.startsWith('{'));
      let view;
      try {
        view = JSON.parse(lines.at(-1) ?? 'null');
      } catch {
        view = null;
      }
      resolve({ code, view, stderr });
    });
  });
}

// ---------------------------------------------------------------------------------------------------------------------
// reading both sides

const sha256 = (b) => createHash('sha256').update(b).digest('hex');

/**
 * Everything the source holds (or ours, with `ours`): per collection its objects by UUID; per document every version
 * with its content's SHA-256; per zaak its zaakeigenschappen; per zaak, document and besluit its audit trail.
 */
async function read(c, base) {
  const z = `${base}/zaken/api/v1`;
  const d = `${base}/documenten/api/v1`;
  const b = `${base}/besluiten/api/v1`;
  const k = `${base}/catalogi/api/v1`;
  const lists = {
    'catalogi/catalogussen': `${k}/catalogussen`,
    'catalogi/zaaktypen': `${k}/zaaktypen?status=alles`,
    'catalogi/informatieobjecttypen': `${k}/informatieobjecttypen?status=alles`,
    'catalogi/besluittypen': `${k}/besluittypen?status=alles`,
    'catalogi/statustypen': `${k}/statustypen?status=alles`,
    'catalogi/roltypen': `${k}/roltypen?status=alles`,
    'catalogi/resultaattypen': `${k}/resultaattypen?status=alles`,
    'catalogi/eigenschappen': `${k}/eigenschappen?status=alles`,
    'catalogi/zaaktype-informatieobjecttypen': `${k}/zaaktype-informatieobjecttypen?status=alles`,
    'zaken/zaken': `${z}/zaken`,
    'zaken/rollen': `${z}/rollen`,
    'zaken/statussen': `${z}/statussen`,
    'zaken/resultaten': `${z}/resultaten`,
    'zaken/zaakobjecten': `${z}/zaakobjecten`,
    'zaken/zaakinformatieobjecten': `${z}/zaakinformatieobjecten`,
    'zaken/klantcontacten': `${z}/klantcontacten`,
    'documenten/enkelvoudiginformatieobjecten': `${d}/enkelvoudiginformatieobjecten`,
    'documenten/gebruiksrechten': `${d}/gebruiksrechten`,
    'documenten/objectinformatieobjecten': `${d}/objectinformatieobjecten`,
    'besluiten/besluiten': `${b}/besluiten`,
    'besluiten/besluitinformatieobjecten': `${b}/besluitinformatieobjecten`,
  };
  const out = { objecten: {}, versies: {}, eigenschappen: {}, trails: {} };
  for (const [key, url] of Object.entries(lists)) {
    const objecten = await c.all(url);
    // (objectinformatieobjecten by what they link: the platform keeps these links itself, under UUIDs of its own)
    const id = key === 'documenten/objectinformatieobjecten' ? oioKey : (o) => uuidOf(o.url);
    out.objecten[key] = new Map(objecten.map((o) => [id(o), o]));
  }
  for (const zaak of out.objecten['zaken/zaken'].values()) {
    out.eigenschappen[uuidOf(zaak.url)] = await c.all(`${zaak.url}/zaakeigenschappen`);
  }
  for (const doc of out.objecten['documenten/enkelvoudiginformatieobjecten'].values()) {
    const versies = [];
    for (let v = 1; v <= doc.versie; v++) {
      const res = await c.call('GET', `${doc.url}?versie=${v}`);
      const download = await c.call('GET', `${doc.url}/download?versie=${v}`, undefined, { accept: '*/*' });
      versies.push({
        object: res.status === 200 ? res.json : null,
        status: res.status,
        inhoud: download.status === 200 ? sha256(download.bytes) : `status ${download.status}`,
        omvang: download.bytes.length,
      });
    }
    out.versies[uuidOf(doc.url)] = versies;
    // (compared as a detail read gives it: Open Zaak 1.21.0's lists give every document the `inhoud` URL of the
    // list's first, ?versie= included)
    if (versies.at(-1)?.object) out.objecten['documenten/enkelvoudiginformatieobjecten'].set(uuidOf(doc.url), versies.at(-1).object);
  }
  for (const key of ['zaken/zaken', 'documenten/enkelvoudiginformatieobjecten', 'besluiten/besluiten']) {
    for (const obj of out.objecten[key].values()) {
      const res = await c.call('GET', `${obj.url}/audittrail`);
      out.trails[uuidOf(obj.url)] = res.status === 200 ? res.json : res.status === 404 ? [] : { status: res.status, text: res.text.slice(0, 200) };
    }
  }
  return out;
}

/**
 * An objectinformatieobject by what it links (the platform keeps these links itself, under UUIDs of its own). Open Zaak
 * 1.21.0's list names every link's object with the path of the list's first (`/zaken/api/v1/zaken/<a besluit's UUID>`
 * when a zaak's link comes first): read by its objectType.
 */
function oioKey(o) {
  return `${rewrite(oioObject(o))} ${rewrite(o.informatieobject)}`;
}
const OBJECT_PATHS = { zaak: '/zaken/api/v1/zaken/', besluit: '/besluiten/api/v1/besluiten/' };
const oioObject = (o) => String(o.object).replace(/\/(zaken\/api\/v1\/zaken|besluiten\/api\/v1\/besluiten)\//, OBJECT_PATHS[o.objectType] ?? '$&');

/**
 * A zaak as the import reads it: Open Zaak's ORM leaves its vertrouwelijkheidaanduiding `""`, which is absent, so the
 * zaak's is its zaaktype's (as the standard says for an absent one).
 */
function zaakAlsGelezen(source, zaak) {
  if (zaak.vertrouwelijkheidaanduiding !== '') return zaak;
  const zaaktype = source.objecten['catalogi/zaaktypen'].get(uuidOf(zaak.zaaktype));
  return { ...zaak, vertrouwelijkheidaanduiding: zaaktype?.vertrouwelijkheidaanduiding };
}

const uuidOf = (url) => /([0-9a-f-]{36})\/?$/.exec(url)?.[1] ?? url;

// ---------------------------------------------------------------------------------------------------------------------
// comparing

/** A value of the source as it reads here: its URLs ours (the trailing slash of Open Zaak's URL forms left off). */
function rewrite(v) {
  if (typeof v === 'string') return v.startsWith(`${OZ}/`) ? BASE + v.slice(OZ.length) : v;
  if (Array.isArray(v)) return v.map(rewrite);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, rewrite(x)]));
  return v;
}

const empty = (v) =>
  v === undefined || v === null || v === '' || (Array.isArray(v) && v.length === 0) || (v?.constructor === Object && Object.keys(v).length === 0);
const isDateTime = (v) => typeof v === 'string' && /^\d{4}-\d\d-\d\dT\d\d:\d\d/.test(v);

/**
 * Fields of Open Zaak's objects this platform does not keep, or keeps otherwise, with why (the list docs/moving-in.md
 * gives); `*` for every kind of object.
 */
const NOT_COMPARED = {
  '*': {},
  // the platform keeps a document's links itself, under UUIDs of its own (compared by what they link)
  'documenten/objectinformatieobjecten': { url: 'the platform makes these links itself' },
  // Zaken 1.5.1 to 1.7.0 have no eerdereOpschorting (Open Zaak adds it)
  'zaken/zaken': { 'opschorting.eerdereOpschorting': 'not in the standard' },
};

/** The differences between an object of the source (its URLs made ours) and ours: `field: source ≠ ours`. */
function differences(kind, source, ours, prefix = '') {
  const out = [];
  const skip = { ...NOT_COMPARED['*'], ...(NOT_COMPARED[kind] ?? {}) };
  for (const [field, value] of Object.entries(source)) {
    const name = prefix + field;
    if (skip[name] !== undefined) continue;
    out.push(...differ(kind, name, value, ours?.[field]));
  }
  return out;
}

function differ(kind, name, a, b) {
  if (empty(a) && empty(b)) return [];
  if (isDateTime(a) && isDateTime(b) && Date.parse(a) === Date.parse(b)) return [];
  if (Array.isArray(a) && Array.isArray(b) && a.length === b.length) {
    if (a.every((x) => typeof x !== 'object' || x === null)) {
      const sa = [...a].map(String).sort();
      const sb = [...b].map(String).sort();
      return sa.every((x, i) => x === sb[i]) ? [] : [`${name}: ${show(a)} ≠ ${show(b)}`];
    }
    // (objects in any order: each of the source's matched with one of ours that it equals)
    const left = [...b];
    const unmatched = a.filter((x) => {
      const i = left.findIndex((y) => differ(kind, name, x, y).length === 0);
      if (i >= 0) left.splice(i, 1);
      return i < 0;
    });
    return unmatched.length === 0 ? [] : [`${name}: ${show(a)} ≠ ${show(b)}`];
  }
  if (a && typeof a === 'object' && !Array.isArray(a) && b && typeof b === 'object' && !Array.isArray(b)) return differences(kind, a, b, `${name}.`);
  return JSON.stringify(a) === JSON.stringify(b) ? [] : [`${name}: ${show(a)} ≠ ${show(b)}`];
}

const show = (v) => (v === undefined ? 'absent' : JSON.stringify(v)?.slice(0, 160));

/**
 * Checks what is here against the source: per collection the count, and each object of `keys` (those the run
 * brings) under its UUID, equal in every field; with `full` (the runs that wrote so far), the document versions'
 * content and the audit trails.
 */
function compare(label, source, ours, { only, full }) {
  for (const [key, objecten] of Object.entries(source.objecten)) {
    const wanted = [...objecten.values()].filter((o) => !only || only(key, o));
    const here = ours.objecten[key] ?? new Map();
    const ids = new Set(wanted.map((o) => (key === 'documenten/objectinformatieobjecten' ? oioKey(o) : uuidOf(o.url))));
    const extra = [...here.keys()].filter((k) => !ids.has(k));
    check(
      `${label}: ${key} count`,
      here.size === wanted.length,
      `the source has ${wanted.length}${only ? ' in the selection' : ''}, here ${here.size}${extra.length ? `; not at the source: ${extra.slice(0, 3).join(', ')}` : ''}`,
    );
    for (const obj of wanted) {
      const uuid = key === 'documenten/objectinformatieobjecten' ? oioKey(obj) : uuidOf(obj.url);
      const mine = here.get(uuid);
      if (!check(`${label}: ${key}/${uuid}`, mine !== undefined, 'not here')) continue;
      const gelezen =
        key === 'documenten/objectinformatieobjecten'
          ? { ...obj, object: oioObject(obj) }
          : key === 'zaken/zaken'
            ? zaakAlsGelezen(source, obj)
            : obj;
      const diff = differences(key, rewrite(gelezen), mine);
      check(`${label}: ${key}/${uuid} fields`, diff.length === 0, diff.join('; '));
    }
  }
  for (const [uuid, eigenschappen] of Object.entries(source.eigenschappen)) {
    if (only && !only('zaken/zaken', source.objecten['zaken/zaken'].get(uuid))) continue;
    const mine = new Map((ours.eigenschappen[uuid] ?? []).map((e) => [uuidOf(e.url), e]));
    const diff = eigenschappen.flatMap((e) =>
      mine.has(uuidOf(e.url)) ? differences('zaken/zaakeigenschappen', rewrite(e), mine.get(uuidOf(e.url))) : [`${uuidOf(e.url)} not here`],
    );
    check(
      `${label}: zaakeigenschappen of zaak ${uuid}`,
      diff.length === 0 && mine.size === eigenschappen.length,
      diff.join('; ') || `${mine.size} here, ${eigenschappen.length} at the source`,
    );
  }
  if (!full) return;
  for (const [uuid, versies] of Object.entries(source.versies)) {
    const mine = ours.versies[uuid] ?? [];
    if (!check(`${label}: document ${uuid} versions`, mine.length === versies.length, `${versies.length} at the source, ${mine.length} here`))
      continue;
    versies.forEach((v, i) => {
      check(
        `${label}: document ${uuid} version ${i + 1} content (SHA-256)`,
        v.inhoud === mine[i].inhoud && v.omvang === mine[i].omvang,
        `source ${v.inhoud} (${v.omvang} bytes), here ${mine[i].inhoud} (${mine[i].omvang} bytes)`,
      );
      const diff =
        v.object && mine[i].object
          ? differences('documenten/enkelvoudiginformatieobjecten', rewrite(v.object), mine[i].object)
          : [`status ${v.status} / ${mine[i].status}`];
      check(`${label}: document ${uuid} version ${i + 1} fields`, diff.length === 0, diff.join('; '));
    });
  }
  for (const [uuid, trail] of Object.entries(source.trails)) {
    if (!check(`${label}: audit trail of ${uuid} readable at the source`, Array.isArray(trail), JSON.stringify(trail))) continue;
    const mine = Array.isArray(ours.trails[uuid]) ? ours.trails[uuid] : [];
    const here = new Map(mine.map((e) => [e.uuid, e]));
    const missing = trail.filter((e) => !here.has(e.uuid)).map((e) => e.uuid);
    check(`${label}: audit trail of ${uuid} (${trail.length} entries) here by UUID`, missing.length === 0, `missing ${missing.join(', ')}`);
    const twice = mine.filter((e, i) => mine.findIndex((m) => m.uuid === e.uuid) !== i).map((e) => e.uuid);
    check(`${label}: audit trail of ${uuid}: no entry twice`, twice.length === 0, `twice: ${twice.join(', ')}`);
    // (Open Zaak 1.21.0 names the component in capitals, "ZRC"; the standard's enum and this platform in lower case)
    const diff = trail
      .filter((e) => here.has(e.uuid))
      .flatMap((e) => differences('audittrail', rewrite({ ...e, bron: e.bron?.toLowerCase() }), here.get(e.uuid)).map((x) => `${e.uuid} ${x}`));
    check(`${label}: audit trail of ${uuid} entries' fields`, diff.length === 0, diff.join('; '));
    // ("Object geïmporteerd": one per object and run that wrote it; the zaak's own among them)
    const imported = mine.filter((e) => !trail.some((t) => t.uuid === e.uuid));
    const perRun = imported.map((e) => `${e.resourceUrl} ${e.toelichting}`);
    check(
      `${label}: audit trail of ${uuid}: one entry of the import per object and run`,
      perRun.every((k, i) => perRun.indexOf(k) === i) &&
        imported.some((e) => uuidOf(e.resourceUrl ?? '') === uuid) &&
        imported.length <= full * Math.max(1, mine.length),
      `${imported.length} entries besides the source's: ${perRun.slice(0, 6).join('; ')}`,
    );
  }
}

// ---------------------------------------------------------------------------------------------------------------------

async function main() {
  const started = Date.now();
  fs.mkdirSync(LOGS, { recursive: true });
  if (!running()) throw new Error(`Open Zaak is not running: bash ${OPENZAAK_SH} start`);
  const oz = client(OZ_CLIENT, OZ_SECRET);
  const ours = client(CLIENT, CLIENT_SECRET);
  let api;
  let worker;
  try {
    api = startProcess('api', 'services/api/dist/main.js', NODE_ARGS.api ?? []);
    await waitFor(`${BASE}/health`, 60);
    worker = startProcess('worker', 'services/transfer/dist/main.js', NODE_ARGS.transfer ?? []);
    log(`the platform on ${BASE} (database ${PLATFORM_ENV.MONGODB_DB}; logs in ${LOGS})`);

    // Open Zaak: its selectielijst is the platform's Referentielijsten API; it starts empty
    const selectielijst = `${BASE}/referentielijsten/api/v1`;
    await pointSelectielijst(selectielijst);
    ozShell({ OZC_ACTION: 'reset' });
    const t0 = Date.now();
    const made = await fill(oz, OZ, selectielijst, log);
    const orm = ozShell({ OZC_ACTION: 'orm-zaken', OZC_ZAAKTYPE: uuidOf(made.zaaktypen.A.url), OZC_AANTAL: '3' });
    log(`filled in ${((Date.now() - t0) / 1000).toFixed(1)} s (${orm.zaken.length} zaken by the ORM, without a trail)`);
    const source = await read(oz, OZ);
    const count = (key) => source.objecten[key].size;
    log(
      `the source: ${Object.entries(source.objecten)
        .map(([k, m]) => `${k.split('/')[1]} ${m.size}`)
        .join(', ')}`,
    );
    for (const z of orm.zaken)
      check(
        `the source: zaak ${z.zaak} made by the ORM has no audit trail`,
        Array.isArray(source.trails[z.zaak]) && source.trails[z.zaak].length === 0,
      );

    // 1. a dry run: what it would make, nothing stored
    let run = await importeren(['--dry-run'], 'dry-run');
    check(
      'dry run: ends afgerond, exit 0',
      run.code === 0 && run.view?.status === 'afgerond',
      `exit ${run.code}, ${run.view?.status} ${run.view?.fout ?? ''} ${JSON.stringify(run.view?.fouten ?? run.stderr).slice(0, 600)}`,
    );
    // (a document counts a write per version)
    for (const key of Object.keys(source.objecten).filter((k) => !k.startsWith('catalogi/') && k !== 'documenten/objectinformatieobjecten')) {
      const t = run.view?.tellingen?.[key];
      const n = count(key);
      check(
        `dry run: ${key} would be made`,
        t?.gelezen === n && t?.mislukt === 0 && (n === 0 || t?.nieuw >= n),
        `${JSON.stringify(t)}, the source has ${n}`,
      );
    }
    let here = await read(ours, BASE);
    check(
      'dry run: nothing stored',
      here.objecten['zaken/zaken'].size === 0 &&
        here.objecten['documenten/enkelvoudiginformatieobjecten'].size === 0 &&
        here.objecten['catalogi/zaaktypen'].size === 0,
      `${here.objecten['zaken/zaken'].size} zaken, ${here.objecten['catalogi/zaaktypen'].size} zaaktypen here`,
    );

    // 2. a run limited to zaaktype OZCHK-B: those zaken with what is theirs, nothing else
    run = await importeren(['--zaaktype', 'OZCHK-B'], 'limited');
    check(
      'limited run: ends afgerond, exit 0',
      run.code === 0 && run.view?.status === 'afgerond',
      `exit ${run.code}, ${run.view?.status} ${run.view?.fout ?? ''} ${JSON.stringify(run.view?.fouten ?? run.stderr).slice(0, 600)}`,
    );
    here = await read(ours, BASE);
    compare('limited run', source, here, { only: selection(source, made.zaaktypen.B.url), full: 0 });

    // 3. a whole run: everything
    run = await importeren([], 'whole');
    check(
      'whole run: ends afgerond without failures, exit 0',
      run.code === 0 && run.view?.status === 'afgerond' && !run.view?.fouten?.length,
      `exit ${run.code}, ${run.view?.status} ${run.view?.fout ?? ''} ${JSON.stringify(run.view?.fouten ?? run.stderr).slice(0, 1200)}`,
    );
    const verschillen = Object.entries(run.view?.verificatie ?? {}).filter(([, v]) => v.bron !== v.hier);
    check(
      "whole run: its verification finds the source's counts here",
      run.view?.verificatie && verschillen.length === 0,
      JSON.stringify(verschillen),
    );
    check(
      "whole run: its content check finds every version's content equal",
      run.view?.inhoudVerificatie?.aantalAfwijkend === 0 && run.view.inhoudVerificatie.versies === Object.values(source.versies).flat().length,
      JSON.stringify(run.view?.inhoudVerificatie),
    );
    here = await read(ours, BASE);
    compare('whole run', source, here, { full: 2 });

    // 4. the same again: nothing new, nothing twice
    run = await importeren([], 'second');
    check(
      'second run: ends afgerond without failures, exit 0',
      run.code === 0 && run.view?.status === 'afgerond' && !run.view?.fouten?.length,
      `exit ${run.code}, ${run.view?.status} ${run.view?.fout ?? ''} ${JSON.stringify(run.view?.fouten ?? run.stderr).slice(0, 1200)}`,
    );
    const nieuw = Object.entries(run.view?.tellingen ?? {}).filter(([k, t]) => !k.endsWith('audittrail') && t.nieuw > 0);
    check('second run: makes nothing new', run.view?.tellingen && nieuw.length === 0, JSON.stringify(nieuw));
    const again = await read(ours, BASE);
    compare('second run', source, again, { full: 3 });
    for (const [key, m] of Object.entries(here.objecten))
      check(
        `second run: ${key} count unchanged`,
        again.objecten[key].size === m.size,
        `${m.size} after the first, ${again.objecten[key].size} after the second`,
      );
  } finally {
    await stopProcess(worker);
    await stopProcess(api);
    if (!process.env.OZCHECK_KEEP)
      await dropDatabase().catch((err) => log(`the database ${PLATFORM_ENV.MONGODB_DB} was not dropped: ${err.message}`));
  }
  log(`took ${((Date.now() - started) / 1000).toFixed(0)} s`);
}

/** What a run limited to one zaaktype brings: its zaken, their parts, their besluiten and the documents these link. */
function selection(source, zaaktype) {
  const zaken = new Set([...source.objecten['zaken/zaken'].values()].filter((z) => z.zaaktype === zaaktype).map((z) => z.url));
  const besluiten = new Set([...source.objecten['besluiten/besluiten'].values()].filter((b) => zaken.has(b.zaak)).map((b) => b.url));
  const documenten = new Set([
    ...[...source.objecten['zaken/zaakinformatieobjecten'].values()].filter((l) => zaken.has(l.zaak)).map((l) => l.informatieobject),
    ...[...source.objecten['besluiten/besluitinformatieobjecten'].values()].filter((l) => besluiten.has(l.besluit)).map((l) => l.informatieobject),
  ]);
  return (key, o) => {
    if (key.startsWith('catalogi/')) return true;
    if (key === 'zaken/zaken') return zaken.has(o.url);
    if (key.startsWith('zaken/')) return zaken.has(o.zaak);
    if (key === 'besluiten/besluiten') return besluiten.has(o.url);
    if (key === 'besluiten/besluitinformatieobjecten') return besluiten.has(o.besluit);
    if (key === 'documenten/enkelvoudiginformatieobjecten') return documenten.has(o.url);
    if (key === 'documenten/objectinformatieobjecten') return zaken.has(oioObject(o)) || besluiten.has(oioObject(o));
    return documenten.has(o.informatieobject);
  };
}

async function dropDatabase() {
  const { MongoClient } = require(require.resolve('mongodb', { paths: [path.join(root, 'services', 'api')] }));
  const mongo = new MongoClient(process.env.MONGODB_URL ?? 'mongodb://127.0.0.1:27017');
  await mongo.connect();
  try {
    await mongo.db(PLATFORM_ENV.MONGODB_DB).dropDatabase();
  } finally {
    await mongo.close();
  }
}

main()
  .catch((err) => check('the check ran to its end', false, err.stack ?? String(err)))
  .finally(() => {
    for (const f of results.failures.slice(0, 200)) console.log(`  FAILED ${f}`);
    if (results.failures.length > 200) console.log(`  ... and ${results.failures.length - 200} more`);
    console.log(`openzaak-import: ${results.passed} passed, ${results.failed} failed`);
    process.exit(results.failed ? 1 : 0);
  });
