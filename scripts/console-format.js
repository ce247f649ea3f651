// How `npm start` (scripts/start.js) shows the services' output. The services write JSON lines (pino, already redacted
// and scrubbed of BSNs); on a terminal each becomes one readable line, `HH:MM:SS.mmm service LEVEL message key=value`,
// with only the few fields a person reads (FIELDS), never the whole object. Not on a terminal, or with
// LOG_FORMAT=json, the lines stay JSON (`service  | {...}`); LOG_FORMAT=pretty asks for readable lines anyway.
// Lines that are not JSON (a stack trace on stderr, a library's own output) are shown as they are.

/** The service column (the longest name, `notifier`, and one space). */
const NAME_WIDTH = 8;
/** A field's value is cut after this many characters. */
const MAX_VALUE = 160;
const PINO_LEVELS = { 10: 'trace', 20: 'debug', 30: 'info', 40: 'warn', 50: 'error', 60: 'fatal' };

const str = (v) => (typeof v === 'string' ? v : undefined);
const num = (v) => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const scalar = (v) => (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? v : undefined);
/** A list of scalars (Kafka topics), not a list of objects. */
const list = (v) => (Array.isArray(v) && v.length && v.every((x) => scalar(x) !== undefined) ? v.join(',') : scalar(v));
const errorOf = (v) => (v && typeof v === 'object' ? (str(v.message) ?? str(v.type)) : str(v));

/**
 * The fields shown, in this order, as `name=value`: [the field, its name on the line, how its value is read]. Whatever
 * is not here (headers, payloads, bodies, hostnames, ids of people) is not shown; an object field only through a reader
 * that takes one part of it.
 */
const FIELDS = [
  ['err', 'err', errorOf],
  ['req', 'req', (v) => (v && typeof v === 'object' && str(v.method) && str(v.url) ? `${v.method} ${v.url}` : undefined)],
  ['res', 'status', (v) => (v && typeof v === 'object' ? num(v.statusCode) : undefined)],
  ['responseTime', 'ms', (v) => (num(v) === undefined ? undefined : Math.round(v * 10) / 10)],
  ['component', 'component', str],
  ['ms', 'ms', num],
  ['status', 'status', scalar],
  ['route', 'route', str],
  ['ZaakIdentificatie', 'ZaakIdentificatie', str],
  ['overdracht', 'overdracht', str],
  ['run', 'run', str],
  ['abonnement', 'abonnement', str],
  ['doelregistratie', 'doelregistratie', str],
  ['fout', 'fout', str],
  ['reason', 'reason', str],
  ['reden', 'reden', str],
  ['state', 'state', str],
  ['taskQueue', 'taskQueue', str],
  ['topics', 'topics', list],
  ['address', 'address', str],
  ['port', 'port', num],
  ['downMs', 'downMs', num],
  ['size', 'size', str],
  ['release', 'release', str],
  ['baseUrl', 'baseUrl', str],
];

const COLORS = { dim: [2, 22], red: [31, 39], yellow: [33, 39], green: [32, 39], cyan: [36, 39], bold: [1, 22] };
const paint = (on, color, text) => (on ? `\x1b[${COLORS[color][0]}m${text}\x1b[${COLORS[color][1]}m` : text);
const LEVEL_COLOR = { trace: 'dim', debug: 'dim', info: 'green', warn: 'yellow', error: 'red', fatal: 'red' };

const two = (n) => String(n).padStart(2, '0');
/** `HH:MM:SS.mmm` in this machine's time zone. */
function clock(date) {
  return `${two(date.getHours())}:${two(date.getMinutes())}:${two(date.getSeconds())}.${String(date.getMilliseconds()).padStart(3, '0')}`;
}

/** A value as it is written after `name=`: quoted when it holds spaces, quotes or `=`; cut when long. */
function shown(value) {
  let text = String(value);
  if (text.length > MAX_VALUE) text = `${text.slice(0, MAX_VALUE)}…`;
  return /[\s"=]/.test(text) || text === '' ? JSON.stringify(text) : text;
}

/** A pino line's fields, or undefined when the line is not one. */
function parsed(line) {
  if (!line.startsWith('{')) return undefined;
  try {
    const entry = JSON.parse(line);
    return entry && typeof entry === 'object' && !Array.isArray(entry) && ('msg' in entry || 'level' in entry) ? entry : undefined;
  } catch {
    return undefined;
  }
}

/**
 * One event as a person reads it: `LEVEL message key=value ...` (no time, no service), or undefined for a line that is
 * not a pino JSON line. What the line of a service that exited quotes as its last error.
 */
function summary(line, { color = false } = {}) {
  const entry = parsed(line);
  if (!entry) return undefined;
  const level = str(entry.level) ?? PINO_LEVELS[entry.level] ?? 'info';
  const loud = level === 'warn' || level === 'error' || level === 'fatal';
  let message = str(entry.msg) ?? errorOf(entry.err) ?? '';
  // (a message of several lines, such as webpack's listing at debug: its lines under the first, indented)
  message = message.replace(/\n/g, `\n${' '.repeat(12 + 1 + NAME_WIDTH + 1 + 5 + 1)}`);
  const fields = [];
  const named = new Set();
  for (const [key, name, read] of FIELDS) {
    if (!(key in entry) || named.has(name)) continue;
    const value = read(entry[key]);
    // the error's message once: not again as `err=` when it is the line's message
    if (value === undefined || (key === 'err' && value === message)) continue;
    named.add(name);
    fields.push(`${paint(color, 'dim', `${name}=`)}${shown(value)}`);
  }
  const label = paint(color, LEVEL_COLOR[level] ?? 'green', level.toUpperCase().padEnd(5));
  const text = loud ? paint(color, 'bold', message) : level === 'debug' || level === 'trace' ? paint(color, 'dim', message) : message;
  return [label, text, ...fields].filter(Boolean).join(' ');
}

/**
 * A line a service wrote, as `npm start` shows it: `{ pretty: false }` as it is, after `service  | `; pretty, one
 * readable line (`HH:MM:SS.mmm service LEVEL message key=value ...`), or the line as it is, after the service's name,
 * when it is not JSON. `now` is the time shown for a line without one.
 */
function formatLine(service, line, { pretty = false, color = false, now = new Date() } = {}) {
  if (!pretty) return `${service.padEnd(NAME_WIDTH)} | ${line}`;
  const name = paint(color, 'cyan', service.padEnd(NAME_WIDTH));
  const text = summary(line, { color });
  if (text === undefined) return `${' '.repeat(12)} ${name} ${line}`;
  const time = parsed(line).time;
  const date = typeof time === 'string' || typeof time === 'number' ? new Date(time) : now;
  return `${paint(color, 'dim', clock(Number.isNaN(date.getTime()) ? now : date))} ${name} ${text}`;
}

/**
 * Readable lines or JSON, and colour: readable on a terminal (`stream.isTTY`), unless LOG_FORMAT says `json` or
 * `pretty`; colour only for readable lines on a terminal that shows colour, and never with NO_COLOR set.
 */
function consoleFormat(env, stream) {
  const pretty = env.LOG_FORMAT === 'pretty' || (env.LOG_FORMAT !== 'json' && !!stream.isTTY);
  const color = pretty && !!stream.isTTY && !env.NO_COLOR && (typeof stream.hasColors !== 'function' || stream.hasColors());
  return { pretty, color };
}

module.exports = { consoleFormat, formatLine, summary, FIELDS };
