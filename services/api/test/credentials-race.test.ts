import { Credentials, ClientOfOtherTenant } from '../src/common/auth/credentials';
import { startApp, type TestApp } from './harness';

// Client ids are unique on the platform: two organisations registering the same new client id at the same moment get
// one credential between them, the other a refusal; neither takes over the other's secret.
const A = '123456782';
const B = '111222333';
let t: TestApp;
beforeAll(async () => {
  t = await startApp();
});
afterAll(async () => t?.close());

it('lets one of two organisations registering the same new client id at once have it, and refuses the other', async () => {
  const creds = new Credentials(t.mongo.db, t.deps.pii, t.config.ZGW_DEFAULT_TENANT);
  for (let i = 0; i < 10; i++) {
    const id = `gelijktijdig-${i}`;
    const outcomes = await Promise.allSettled([creds.set(id, A, `secret-a-${i}`), creds.set(id, B, `secret-b-${i}`)]);
    const won = outcomes.filter((o) => o.status === 'fulfilled');
    expect(won).toHaveLength(1);
    expect(outcomes.find((o) => o.status === 'rejected')).toMatchObject({ reason: expect.any(ClientOfOtherTenant) });
    // the stored credential is the winner's: its tenant and its secret
    const winner = outcomes[0]!.status === 'fulfilled' ? A : B;
    expect(await creds.lookup(id)).toEqual({ tenant: winner, secret: winner === A ? `secret-a-${i}` : `secret-b-${i}` });
  }
});

it("re-keys a client of its own tenant, and refuses one of another's", async () => {
  const creds = new Credentials(t.mongo.db, t.deps.pii, t.config.ZGW_DEFAULT_TENANT);
  await creds.set('eigen', A, 'eerste');
  await creds.set('eigen', A, 'tweede');
  await expect(creds.set('eigen', B, 'overgenomen')).rejects.toBeInstanceOf(ClientOfOtherTenant);
  expect(await creds.lookup('eigen')).toEqual({ tenant: A, secret: 'tweede' });
});
