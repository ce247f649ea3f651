import { Writable } from 'node:stream';
import { createLogger } from '@zgw/shared';
import { jsonFetcher } from '../src/common/platform/deps';

// A reference to another registration that cannot be read (refused, timed out, unreachable): the caller gets status 0
// and answers what that means for its request; the cause is logged, without the query (it may hold a BSN).
it('a reference that cannot be read is status 0 for the caller, and its cause is in the log', async () => {
  const said: string[] = [];
  const log = createLogger(
    'test',
    'warn',
    new Writable({
      write(chunk, _enc, done) {
        said.push(String(chunk));
        done();
      },
    }),
  );
  const fetchJson = jsonFetcher(undefined, log);
  expect(await fetchJson('http://127.0.0.1:1/zaken/api/v1/zaken?bsn=111222333')).toEqual({ status: 0, body: undefined });
  const [line] = said.map((l) => JSON.parse(l) as Record<string, any>);
  expect(line).toMatchObject({ level: 'warn', url: 'http://127.0.0.1:1/zaken/api/v1/zaken', msg: expect.stringMatching(/could not be read/) });
  expect(line!.err).toMatchObject({ type: expect.any(String), stack: expect.any(String) });
  expect(said.join('')).not.toContain('111222333');
});
