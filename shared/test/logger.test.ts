import { Writable } from 'node:stream';
import pino from 'pino';
import { ConfigError, createLogger, loadConfig, scrub, scrubUrl } from '../src';

describe('scrub', () => {
  it('masks nine-digit runs (BSNs) in URLs and text, and leaves other numbers alone', () => {
    expect(scrub('/zaken/api/v1/zaken?rol__betrokkeneIdentificatie__natuurlijkPersoon__inpBsn=111222333')).toBe(
      '/zaken/api/v1/zaken?rol__betrokkeneIdentificatie__natuurlijkPersoon__inpBsn=*********',
    );
    expect(scrub('bsn 123456789 and 999999999')).toBe('bsn ********* and *********');
    expect(scrub('rsin=0000000001 page=12345678')).toBe('rsin=0000000001 page=12345678');
    // Percent-encoded digits are digits; UUIDs stay whole.
    expect(scrub('inpBsn=%31%31%31222%33%33%33&x=1112%322333')).toBe('inpBsn=*********&x=*********');
    expect(scrub('zaken/0d5f3b1e-1234-4567-8abc-123456789abc')).toBe('zaken/0d5f3b1e-1234-4567-8abc-123456789abc');
  });

  it('masks every query parameter named for a BSN in a URL, whatever its value looks like', () => {
    expect(scrubUrl('/zaken?rol__betrokkeneIdentificatie__natuurlijkPersoon__inpBsn=111%20222%20333&page=2')).toBe(
      '/zaken?rol__betrokkeneIdentificatie__natuurlijkPersoon__inpBsn=*********&page=2',
    );
    expect(scrubUrl('/p?BSN=12-34&inp%42sn=9&bsnx=1&zaak=http%3A%2F%2Fx%2F123456789')).toBe(
      '/p?BSN=*********&inp%42sn=*********&bsnx=1&zaak=http%3A%2F%2Fx%2F*********',
    );
    expect(scrubUrl('/zaken/111222333')).toBe('/zaken/*********');
  });

  it('masks the A-nummer and anpIdentificatie filters too', () => {
    expect(
      scrubUrl(
        '/rollen?betrokkeneIdentificatie__natuurlijkPersoon__inpA_nummer=2345678901&betrokkeneIdentificatie__natuurlijkPersoon__anpIdentificatie=ANP-7',
      ),
    ).toBe(
      '/rollen?betrokkeneIdentificatie__natuurlijkPersoon__inpA_nummer=*********&betrokkeneIdentificatie__natuurlijkPersoon__anpIdentificatie=*********',
    );
  });
});

describe('createLogger', () => {
  it('scrubs BSNs from every line it writes, error messages and stacks included', () => {
    const lines: string[] = [];
    const log = createLogger('t', 'trace', { write: (line: string) => void lines.push(line) });
    log.error({ err: new Error('dup key: { inpBsn: "111222333" }'), reqId: '0d5f3b1e-1234-4567-8abc-123456789abc' }, 'failed for 999888777');
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toMatch(/111222333|999888777/);
    expect(lines[0]).toContain('0d5f3b1e-1234-4567-8abc-123456789abc');
  });
});

describe('loadConfig', () => {
  it('derives the public base URL and rejects bad values with the variable name', () => {
    expect(loadConfig({ PORT: '8123' }).PUBLIC_BASE_URL).toBe('http://127.0.0.1:8123');
    expect(loadConfig({ PUBLIC_BASE_URL: 'https://zgw.example.nl/' }).PUBLIC_BASE_URL).toBe('https://zgw.example.nl');
    expect(() => loadConfig({ PORT: 'eighty' })).toThrow(/PORT/);
    expect(() => loadConfig({ JWT_LEEWAY_SECONDS: '-1' })).toThrow(/JWT_LEEWAY_SECONDS/);
    expect(loadConfig({ JWT_LEEWAY_SECONDS: '0' }).JWT_LEEWAY_SECONDS).toBe(0);
  });

  it('names every invalid key at once, those that only go together included, as a ConfigError', () => {
    const attempt = () => loadConfig({ PORT: 'eighty', LOG_LEVEL: 'loud', OIDC_API_ISSUER: 'https://idp.gemeente.example' });
    expect(attempt).toThrow(ConfigError);
    try {
      attempt();
    } catch (err) {
      expect((err as ConfigError).problems.map((p) => p.split(':')[0])).toEqual(['PORT', 'LOG_LEVEL', 'OIDC_API_AUDIENCE']);
    }
  });
});

describe('createLogger redaction', () => {
  it('never writes the authorization header or a secret', () => {
    const lines: string[] = [];
    const sink = new Writable({ write: (chunk, _enc, cb) => (lines.push(String(chunk)), cb()) });
    const log = pino({ redact: { paths: ['req.headers.authorization', 'secret'], censor: '[redacted]' } }, sink);
    log.info({ req: { headers: { authorization: 'Bearer abc.def.ghi' } }, secret: 's3cret' }, 'x');
    expect(lines.join('')).not.toMatch(/abc\.def\.ghi|s3cret/);
  });
});
