import { createLogger, DOELREGISTRATIES_COLLECTION, openSecret, parseDoelregistratiesEnv } from '@zgw/shared';
import { bootstrapDoelregistraties } from '../src/admin/doelregistraties';
import { startApp, token, type TestApp } from './harness';

// ZSDMS configuration: the doelregistraties a zaak can be transferred to (`/admin/api/v1/doelregistraties`, and
// `ZGW_DOELREGISTRATIES` at start). The contract provisioning tools and the transfer tests build on.
const PATH = '/admin/api/v1/doelregistraties';
const intern = {
  naam: 'gemeente-b',
  route: 'intern',
  rsin: '123456782',
  catalogus: 'http://127.0.0.1:8000/catalogi/api/v1/catalogussen/6c4b2c66-1b1a-4bd6-9d43-2f8c4c0f4a11',
  zaaktypen: [{ bron: 'ZT-MELDING', doel: 'ZT-MELDING-B', afsluitResultaat: 'Overgedragen' }],
  bron: 'afsluiten',
};
const extern = {
  naam: 'buurgemeente',
  route: 'extern',
  rsin: '987654321',
  catalogus: 'http://zgw.buurgemeente.example/catalogi/api/v1/catalogussen/1',
  zaaktypen: [{ bron: 'ZT-MELDING', doel: 'MELDING' }],
  bron: 'openlaten',
  zakenApi: 'http://zgw.buurgemeente.example/zaken/api/v1',
  catalogiApi: 'http://zgw.buurgemeente.example/catalogi/api/v1',
  documentenApi: 'http://zgw.buurgemeente.example/documenten/api/v1',
  besluitenApi: 'http://zgw.buurgemeente.example/besluiten/api/v1',
  clientId: 'platform-a',
  secret: 'een-lang-geheim',
};

let t: TestApp;
beforeAll(async () => {
  t = await startApp();
});
afterAll(async () => t.close());

const params = (res: { json(): { invalidParams?: { name: string; code: string }[] } }) =>
  (res.json().invalidParams ?? []).map((p) => `${p.name}:${p.code}`).sort();

describe('doelregistraties', () => {
  /** The stored secret is sealed (not in the clear) and opens to the one given. */
  const expectStoredSealed = async () => {
    const stored = (await t.mongo.db.collection(DOELREGISTRATIES_COLLECTION).findOne({ _id: 'buurgemeente' as never }))?.secret as string;
    expect(stored).toMatch(/^pii:/);
    expect(stored).not.toContain(extern.secret);
    expect(openSecret(t.deps.pii, 'doelregistratie', stored)).toBe(extern.secret);
  };

  it('creates, lists, reads, changes and removes one; the secret is stored sealed and never shown', async () => {
    const created = await t.call('POST', PATH, extern);
    expect(created.statusCode).toBe(201);
    expect(created.headers.location).toBe(`http://127.0.0.1:8000${PATH}/buurgemeente`);
    const { secret: _secret, ...shown } = extern;
    expect(created.json()).toEqual({ ...shown, secretOpgeslagen: true });
    expect(created.body).not.toContain(extern.secret);
    await expectStoredSealed();

    expect((await t.call('POST', PATH, intern)).statusCode).toBe(201);
    const list = await t.call('GET', PATH);
    expect(list.statusCode).toBe(200);
    expect(list.json()).toMatchObject({ count: 2, next: null, previous: null });
    expect(list.json().results.map((d: { naam: string }) => d.naam)).toEqual(['buurgemeente', 'gemeente-b']);
    expect(list.body).not.toContain(extern.secret);

    // a change without a secret keeps the stored one
    const changed = await t.call('PUT', `${PATH}/buurgemeente`, {
      ...shown,
      bron: 'afsluiten',
      zaaktypen: [{ bron: 'ZT-MELDING', doel: 'MELDING', afsluitResultaat: 'Overgedragen' }],
    });
    expect(changed.statusCode).toBe(200);
    expect(changed.json()).toMatchObject({ bron: 'afsluiten', secretOpgeslagen: true });
    await expectStoredSealed();
    expect((await t.call('GET', `${PATH}/buurgemeente`)).json()).toEqual(changed.json());

    expect((await t.call('DELETE', `${PATH}/gemeente-b`)).statusCode).toBe(204);
    expect((await t.call('GET', `${PATH}/gemeente-b`)).statusCode).toBe(404);
    expect((await t.call('DELETE', `${PATH}/gemeente-b`)).statusCode).toBe(404);
    expect((await t.call('GET', PATH)).json().count).toBe(1);
  });

  it('refuses what a transfer could not work with, naming each field (ZGW problem format)', async () => {
    const dup = await t.call('POST', PATH, extern);
    expect(dup.statusCode).toBe(400);
    expect(params(dup)).toEqual(['naam:unique']);

    const { zakenApi: _z, secret: _s, ...noApi } = { ...extern, naam: 'zonder-api' };
    const incomplete = await t.call('POST', PATH, noApi);
    expect(incomplete.statusCode).toBe(400);
    expect(params(incomplete)).toEqual(['zakenApi:required']);
    expect((await t.call('POST', PATH, { ...extern, naam: 'zonder-secret', secret: undefined })).json().invalidParams).toEqual([
      expect.objectContaining({ name: 'secret', code: 'required' }),
    ]);

    const mixed = await t.call('POST', PATH, {
      ...intern,
      naam: 'gemengd',
      clientId: 'x',
      zaaktypen: [
        { bron: 'A', doel: 'B' },
        { bron: 'A', doel: 'C', afsluitResultaat: 'x' },
      ],
    });
    expect(params(mixed)).toEqual(['clientId:invalid', 'zaaktypen.0.afsluitResultaat:required', 'zaaktypen.1.bron:unique']);

    const bad = await t.call('POST', PATH, { ...intern, naam: 'met spatie', rsin: '12', route: 'ergens', onbekend: 1 });
    expect(bad.statusCode).toBe(400);
    expect(params(bad)).toEqual(expect.arrayContaining(['naam:invalid', 'rsin:invalid', 'route:invalid_choice', 'nonFieldErrors:unknown_field']));

    const renamed = await t.call('PUT', `${PATH}/buurgemeente`, { ...extern, naam: 'andere-naam' });
    expect(params(renamed)).toEqual(['naam:invalid']);
    expect((await t.call('PUT', `${PATH}/bestaat-niet`, intern)).statusCode).toBe(404);
    expect((await t.call('POST', PATH, '[1]')).statusCode).toBe(400);
    expect((await t.call('GET', `${PATH}?pagina=2`)).statusCode).toBe(400);
  });

  it('is only for callers that may change autorisaties', async () => {
    await t.client('zonder-rechten', 'zonder-rechten-geheim');
    const other = token('zonder-rechten', 'zonder-rechten-geheim');
    expect((await t.call('GET', PATH, undefined, { token: other })).statusCode).toBe(403);
    expect((await t.call('POST', PATH, { ...intern, naam: 'niet' }, { token: other })).statusCode).toBe(403);
    expect((await t.call('GET', PATH, undefined, { token: null })).statusCode).toBe(401);
  });

  it('registers ZGW_DOELREGISTRATIES at start, and refuses a start with an invalid one', async () => {
    await bootstrapDoelregistraties(
      t.mongo.db,
      t.deps.pii,
      JSON.stringify([{ ...intern, naam: 'uit-de-omgeving' }]),
      createLogger('test', 'silent'),
      t.config.ZGW_DEFAULT_TENANT,
    );
    expect((await t.call('GET', `${PATH}/uit-de-omgeving`)).json()).toMatchObject({
      naam: 'uit-de-omgeving',
      route: 'intern',
      secretOpgeslagen: false,
    });
    expect(() => parseDoelregistratiesEnv('{"naam": 1}')).toThrow(/JSON array/);
    expect(() => parseDoelregistratiesEnv('[{"naam": "x"}]')).toThrow(/ZGW_DOELREGISTRATIES\[0\] is not a valid doelregistratie: route/);
    const { secret: _s, ...withoutSecret } = extern;
    expect(() => parseDoelregistratiesEnv(JSON.stringify([withoutSecret]))).toThrow(/needs its secret/);
    expect(parseDoelregistratiesEnv('')).toEqual([]);
  });
});
