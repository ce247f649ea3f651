import { Writable } from 'node:stream';
import pino from 'pino';
import { loadConfig, scrub } from '../src';

describe('scrub', () => {
  it('masks nine-digit runs (BSNs) in URLs and text, and leaves other numbers alone', () => {
    expect(scrub('/zaken/api/v1/zaken?rol__betrokkeneIdentificatie__natuurlijkPersoon__inpBsn=111222333')).toBe(
      '/zaken/api/v1/zaken?rol__betrokkeneIdentificatie__natuurlijkPersoon__inpBsn=*********',
    );
    expect(scrub('bsn 123456789 and 999999999')).toBe('bsn ********* and *********');
    expect(scrub('rsin=0000000001 page=12345678')).toBe('rsin=0000000001 page=12345678');
  });
});

describe('loadConfig', () => {
  it('derives the public base URL and rejects bad values with the variable name', () => {
    expect(loadConfig({ PORT: '8123' }).PUBLIC_BASE_URL).toBe('http://127.0.0.1:8123');
    expect(loadConfig({ PUBLIC_BASE_URL: 'https://zgw.example.nl/' }).PUBLIC_BASE_URL).toBe('https://zgw.example.nl');
    expect(() => loadConfig({ PORT: 'eighty' })).toThrow(/PORT/);
    expect(() => loadConfig({ JWT_LEEWAY_SECONDS: '10' })).toThrow(/JWT_LEEWAY_SECONDS/);
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
