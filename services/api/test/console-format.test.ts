import { Writable } from 'node:stream';
import { createLogger } from '@zgw/shared';
// How `npm start` shows the services' lines (required by scripts/start.js).
import { consoleFormat, formatLine } from '../../../scripts/console-format';

const PRETTY = { pretty: true, color: false };
const TIME = '2026-12-01T09:08:07.654Z';
/** `HH:MM:SS.mmm` of TIME on this machine's clock. */
const clock = (() => {
  const d = new Date(TIME);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}.654`;
})();
const line = (fields: Record<string, unknown>) =>
  JSON.stringify({ level: 'info', time: TIME, pid: 4242, hostname: 'build-7', name: 'api', ...fields });

/** What one call of the product's logger writes (redacted and scrubbed as every service's line is). */
function written(log: (l: ReturnType<typeof createLogger>) => void): string {
  let out = '';
  const destination = new Writable({
    write(chunk: Buffer, _enc, done) {
      out += chunk.toString();
      done();
    },
  });
  log(createLogger('api', 'info', destination));
  return out.trim();
}

describe('a readable line', () => {
  it('is time, service, level, message and the chosen fields', () => {
    expect(
      formatLine('transfer', line({ msg: 'overdracht: doelzaak aangemaakt', ZaakIdentificatie: 'ZAAK-2026-0001', overdracht: 'b1c2' }), PRETTY),
    ).toBe(`${clock} transfer INFO  overdracht: doelzaak aangemaakt ZaakIdentificatie=ZAAK-2026-0001 overdracht=b1c2`);
    expect(
      formatLine(
        'api',
        line({
          msg: 'request completed',
          reqId: 'r-1',
          res: { statusCode: 201 },
          responseTime: 12.3456,
          req: { method: 'POST', url: '/zaken/api/v1/zaken' },
        }),
        PRETTY,
      ),
    ).toBe(`${clock} api      INFO  request completed req="POST /zaken/api/v1/zaken" status=201 ms=12.3`);
    expect(
      formatLine(
        'notifier',
        line({
          level: 'warn',
          msg: 'could not re-read abonnementen',
          err: { type: 'Error', message: 'connection reset', stack: 'Error: connection reset\n    at x' },
        }),
        PRETTY,
      ),
    ).toBe(`${clock} notifier WARN  could not re-read abonnementen err="connection reset"`);
    // pino's numeric levels too; an error without a message of its own says the error's
    expect(formatLine('audit', line({ level: 50, msg: undefined, err: { message: 'boom' } }), PRETTY)).toBe(`${clock} audit    ERROR boom`);
  });

  it('shows no other field: not the whole object, not a header, not a secret', () => {
    const shown = formatLine(
      'api',
      line({
        msg: 'client registered',
        clientId: 'zgw-transfer',
        secret: 'hunter2-hunter2-hunter2-hunter2',
        req: { method: 'GET', url: '/x', headers: { authorization: 'Bearer abc.def.ghi' } },
        tellingen: { zaken: 3 },
        user: 'admin',
      }),
      PRETTY,
    );
    expect(shown).toBe(`${clock} api      INFO  client registered req="GET /x"`);
    expect(shown).not.toMatch(/hunter2|Bearer|abc\.def|tellingen|admin|build-7|4242|clientId/);
  });

  it('shows what the logger wrote, redacted and with BSNs masked: the formatter undoes nothing', () => {
    const json = written((log) =>
      log.error(
        { err: new Error('geen zaak voor bsn 111222333'), secret: 'hunter2', req: { method: 'GET', url: '/zaken?bsn=111222333' } },
        'lookup failed',
      ),
    );
    const shown = formatLine('api', json, PRETTY);
    expect(shown).toMatch(/ api {6}ERROR lookup failed err="geen zaak voor bsn \*{9}" req="GET \/zaken\?bsn=\*{9}"$/);
    expect(shown).not.toMatch(/111222333|hunter2/);
  });

  it('passes a line that is not JSON through as it is', () => {
    expect(formatLine('api', '    at Object.<anonymous> (/work/main/services/api/dist/main.js:3:9)', PRETTY)).toBe(
      `${' '.repeat(12)} api      ${'    at Object.<anonymous> (/work/main/services/api/dist/main.js:3:9)'}`,
    );
    expect(formatLine('api', '{not json', PRETTY)).toBe(`${' '.repeat(12)} api      {not json`);
    expect(formatLine('api', '[1,2]', PRETTY)).toBe(`${' '.repeat(12)} api      [1,2]`);
  });

  it('puts the lines of a message of several lines under it, and a long value cut', () => {
    expect(formatLine('transfer', line({ level: 'debug', msg: 'asset a 1 KiB\nwebpack 5 compiled successfully in 9 ms' }), PRETTY)).toBe(
      `${clock} transfer DEBUG asset a 1 KiB\n${' '.repeat(28)}webpack 5 compiled successfully in 9 ms`,
    );
    const long = formatLine('api', line({ msg: 'x', fout: 'y'.repeat(500) }), PRETTY);
    expect(long).toBe(`${clock} api      INFO  x fout=${'y'.repeat(160)}…`);
  });

  it('makes warnings and errors stand out in colour, only when asked to', () => {
    const warn = formatLine('api', line({ level: 'warn', msg: 'slow' }), { pretty: true, color: true });
    expect(warn).toContain('\x1b[33mWARN \x1b[39m');
    expect(warn).toContain('\x1b[1mslow\x1b[22m');
    expect(formatLine('api', line({ level: 'error', msg: 'down' }), { pretty: true, color: true })).toContain('\x1b[31mERROR\x1b[39m');
    expect(formatLine('api', line({ level: 'warn', msg: 'slow' }), PRETTY)).not.toContain('\x1b[');
  });
});

describe('JSON lines', () => {
  it('stay as they are, after the service name', () => {
    const json = line({ msg: 'request completed', res: { statusCode: 200 }, headers: { authorization: '[redacted]' } });
    expect(formatLine('api', json, { pretty: false })).toBe(`api      | ${json}`);
    expect(formatLine('transfer', 'not json', { pretty: false })).toBe('transfer | not json');
  });
});

describe('the format chosen', () => {
  const tty = { isTTY: true, hasColors: () => true };
  it('is readable with colour on a terminal, JSON otherwise; LOG_FORMAT decides either way, NO_COLOR takes the colour', () => {
    expect(consoleFormat({}, tty)).toEqual({ pretty: true, color: true });
    expect(consoleFormat({}, {})).toEqual({ pretty: false, color: false });
    expect(consoleFormat({ LOG_FORMAT: 'json' }, tty)).toEqual({ pretty: false, color: false });
    expect(consoleFormat({ LOG_FORMAT: 'pretty' }, {})).toEqual({ pretty: true, color: false });
    expect(consoleFormat({ NO_COLOR: '1' }, tty)).toEqual({ pretty: true, color: false });
    expect(consoleFormat({}, { isTTY: true, hasColors: () => false })).toEqual({ pretty: true, color: false });
  });
});
