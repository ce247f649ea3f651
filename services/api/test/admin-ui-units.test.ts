import { randomUUID } from 'node:crypto';
import { connectMongo, type Mongo } from '@zgw/shared';
import { readDraft, toInput } from '../src/admin/ui/applicaties';
import { localToIso } from '../src/admin/ui/abonnementen';
import { parseForm } from '../src/admin/ui/forms';
import { hashPassword, verifyPassword } from '../src/admin/ui/passwords';
import { splitScopes } from '../src/admin/ui/scopes';
import { AdminSessions, csrfMatches, parseCookies, serializeCookie } from '../src/admin/ui/sessions';
import { AdminUsers } from '../src/admin/ui/users';
import { escapeHtml, html, raw, safeHref } from '../src/common/http/html';
import { markdownLite, renderReference, typeOf } from '../src/reference/render';
const ROLE = { tenant: '000000000', platform: true };

describe('escaping', () => {
  it('escapes every interpolated value, in text and in attributes', () => {
    const evil = `<script>alert('x')</script>" onmouseover="x` + '`';
    const out = html`<p title="${evil}">${evil}</p>`.value;
    expect(out).toBe(
      '<p title="&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&quot; onmouseover=&quot;x&#96;">&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&quot; onmouseover=&quot;x&#96;</p>',
    );
    expect(escapeHtml('a & b')).toBe('a &amp; b');
  });

  it('keeps markup made by the tag, lists of it, and leaves out null, undefined and false', () => {
    const items = ['<a>', 'b'].map((s) => html`<li>${s}</li>`);
    expect(html`<ul>${items}</ul>${null}${undefined}${false}${0}`.value).toBe('<ul><li>&lt;a&gt;</li><li>b</li></ul>0');
    expect(html`${raw('<br>')}`.value).toBe('<br>');
  });

  it('links only http(s) URLs and paths of this host', () => {
    expect(safeHref('javascript:alert(1)')).toBeUndefined();
    expect(safeHref('data:text/html,<script>')).toBeUndefined();
    expect(safeHref('//evil.example/x')).toBeUndefined();
    expect(safeHref('/zaken/api/v1/schema/openapi.yaml')).toBe('/zaken/api/v1/schema/openapi.yaml');
    expect(safeHref('https://example.org/a?b=1')).toBe('https://example.org/a?b=1');
  });

  it('renders the Markdown of OpenAPI descriptions without letting it carry markup or script links', () => {
    expect(markdownLite('zie [1.7.0](/documenten/api/v1/schema/1.7.0/openapi.yaml) en `Api-Version`').value).toBe(
      'zie <a href="/documenten/api/v1/schema/1.7.0/openapi.yaml">1.7.0</a> en <code>Api-Version</code>',
    );
    expect(markdownLite('[klik](javascript:alert(1)) <b>x</b>').value).not.toContain('<a');
    expect(markdownLite('<img src=x onerror=alert(1)>').value).toBe('&lt;img src=x onerror=alert(1)&gt;');
  });
});

describe('API reference rendering', () => {
  const doc = {
    openapi: '3.0.3',
    info: { title: 'Test API', version: '1.2.3', description: 'Beschrijving met `code`.' },
    servers: [{ url: 'http://host/test/api/v1' }],
    paths: {
      '/dingen/{uuid}': {
        get: {
          operationId: 'ding_read',
          summary: 'Een <ding> opvragen.',
          parameters: [{ name: 'uuid', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } }],
          responses: { '200': { description: 'OK', content: { 'application/json': { schema: { $ref: '#/components/schemas/Ding' } } } } },
          security: [{ 'JWT-Claims': ['(dingen.lezen | dingen.alles)'] }],
        },
      },
    },
    components: {
      schemas: {
        Ding: {
          type: 'object',
          required: ['naam'],
          properties: {
            naam: { type: 'string', maxLength: 10, description: 'De <naam>.' },
            soort: { type: 'string', enum: ['a', 'b'], nullable: true },
            delen: { type: 'array', items: { $ref: '#/components/schemas/Deel' } },
            extra: { type: 'object', properties: { x: { type: 'integer', minimum: 1 } } },
          },
        },
        Deel: { type: 'object', properties: { url: { type: 'string', format: 'uri', readOnly: true } } },
      },
    },
  };
  const page = renderReference(doc, {
    index: '/api-referentie',
    json: '/j',
    yaml: '/y',
    versions: [{ version: '1.2.3', href: '/x', current: true }],
  }).value;

  it('shows each operation with its scopes, parameters and responses, and each schema with its fields', () => {
    expect(page).toContain('id="op-ding_read"');
    expect(page).toContain('<code>/dingen/{uuid}</code>');
    expect(page).toContain('Een &lt;ding&gt; opvragen.');
    expect(page).toContain('<code>(dingen.lezen | dingen.alles)</code>');
    expect(page).toContain('<a class="ref" href="#schema-Ding">Ding</a>');
    expect(page).toContain('id="schema-Deel"');
    expect(page).toContain('max. lengte 10');
    expect(page).toContain('een van <code>&quot;a&quot;</code>, <code>&quot;b&quot;</code>');
    expect(page).toContain('De &lt;naam&gt;.');
    expect(page).toContain('alleen lezen');
    expect(page).not.toContain('<script');
  });

  it('names types shortly: references, lists, alternatives, nullability', () => {
    expect(typeOf({ type: 'array', items: { $ref: '#/components/schemas/Rol' } }).value).toContain(
      'lijst van <a class="ref" href="#schema-Rol">Rol</a>',
    );
    expect(typeOf({ oneOf: [{ type: 'string' }, { type: 'integer' }] }).value).toMatch(/string.*\|.*integer/);
    expect(typeOf({ type: 'string', format: 'date', nullable: true }).value).toContain('(date)');
  });
});

describe('passwords', () => {
  it('hashes with scrypt and a fresh salt; only the same password verifies', async () => {
    const a = await hashPassword('een lang wachtwoord');
    const b = await hashPassword('een lang wachtwoord');
    expect(a).not.toBe(b);
    expect(await verifyPassword('een lang wachtwoord', a)).toBe(true);
    expect(await verifyPassword('een lang wachtwoorD', a)).toBe(false);
    expect(await verifyPassword('x', 'plain-text')).toBe(false);
    expect(await verifyPassword('x', 'scrypt$0$8$1$abc$def')).toBe(false);
  });
});

describe('cookies and CSRF tokens', () => {
  it('parses cookies and writes HttpOnly SameSite=Strict ones, Secure on https', () => {
    expect(parseCookies('a=1; zgw_beheer=abc%3D; a=2')).toEqual({ a: '1', zgw_beheer: 'abc=' });
    expect(serializeCookie('s', 'v', { path: '/admin', maxAgeSeconds: 60, secure: false })).toBe(
      's=v; Path=/admin; HttpOnly; SameSite=Strict; Max-Age=60',
    );
    expect(serializeCookie('s', 'v', { path: '/admin', secure: true })).toBe('s=v; Path=/admin; HttpOnly; SameSite=Strict; Secure');
  });

  it('matches a CSRF token only exactly', () => {
    expect(csrfMatches('abc', 'abc')).toBe(true);
    expect(csrfMatches('abd', 'abc')).toBe(false);
    expect(csrfMatches('', 'abc')).toBe(false);
    expect(csrfMatches(['abc'], 'abc')).toBe(false);
    expect(csrfMatches(undefined, 'abc')).toBe(false);
  });
});

describe('the autorisaties editor form', () => {
  it('reads rows (scopes from checkboxes and the free field), drops empty and removed rows, and puts the type in its field', () => {
    const form = parseForm(
      new URLSearchParams([
        ['label', 'App'],
        ['clientIds', 'a\r\nb\n\na'],
        ['alleenIsGereedVoorPublicatie', '1'],
        ['rows', '4'],
        ['a0.component', 'zrc'],
        ['a0.scopes', 'zaken.lezen'],
        ['a0.scopes', 'zaken.bijwerken'],
        ['a0.extra', 'audittrails.lezen, zaken.lezen'],
        ['a0.type', 'https://x/zaaktypen/1'],
        ['a0.max', 'geheim'],
        ['a1.component', ''],
        ['a2.component', 'drc'],
        ['a2.remove', '1'],
        ['a3.component', 'ac'],
        ['a3.scopes', 'autorisaties.lezen'],
        ['a3.type', 'https://ignored'],
      ]).toString(),
    );
    const draft = readDraft(form);
    expect(draft).toMatchObject({ label: 'App', clientIds: ['a', 'b'], heeftAlleAutorisaties: false, alleenIsGereedVoorPublicatie: true });
    expect(toInput(draft).autorisaties).toEqual([
      {
        component: 'zrc',
        scopes: ['zaken.lezen', 'zaken.bijwerken', 'audittrails.lezen'],
        zaaktype: 'https://x/zaaktypen/1',
        maxVertrouwelijkheidaanduiding: 'geheim',
      },
      { component: 'ac', scopes: ['autorisaties.lezen'] },
    ]);
  });

  it('splits scope expressions of the OpenAPI documents', () => {
    expect(splitScopes('(zaken.bijwerken | zaken.geforceerd-bijwerken)')).toEqual(['zaken.bijwerken', 'zaken.geforceerd-bijwerken']);
    expect(splitScopes('zaken.lezen')).toEqual(['zaken.lezen']);
  });

  it('takes a datetime-local value as UTC', () => {
    expect(localToIso('2026-05-01T10:30')).toBe('2026-05-01T10:30:00Z');
    expect(localToIso('2026-05-01T10:30:15')).toBe('2026-05-01T10:30:15Z');
    expect(localToIso('')).toBeUndefined();
  });
});

describe('sessions and logins over time', () => {
  let mongo: Mongo;
  let now = new Date('2026-01-01T08:00:00Z');
  const clock = () => now;
  const advance = (ms: number) => {
    now = new Date(now.getTime() + ms);
  };
  beforeAll(async () => {
    mongo = await connectMongo(process.env.MONGODB_URL!, `zgw_test_${randomUUID().slice(0, 8)}`);
  });
  afterAll(async () => {
    await mongo.db.dropDatabase();
    await mongo.client.close();
  });

  it('a session ends after its idle time, and is extended by use up to its maximum lifetime', async () => {
    const sessions = new AdminSessions(mongo.db, 30 * 60_000, 2 * 3_600_000, clock);
    await sessions.ensureIndexes();
    const idle = await sessions.create('a', ROLE);
    advance(31 * 60_000);
    expect(await sessions.get(idle.token)).toBeUndefined();

    const used = await sessions.create('a', ROLE);
    for (let i = 0; i < 5; i++) {
      advance(20 * 60_000);
      expect(await sessions.get(used.token)).toBeDefined(); // 100 minutes of use, never 30 idle
    }
    advance(21 * 60_000); // 2 h 1 min after creation: past the maximum, however recently used
    expect(await sessions.get(used.token)).toBeUndefined();
    expect(await sessions.get('not-a-token')).toBeUndefined();
  });

  it('purges expired sessions', async () => {
    const sessions = new AdminSessions(mongo.db, 60_000, 3_600_000, clock);
    await sessions.create('purged', ROLE);
    advance(2 * 60_000);
    await sessions.purge();
    expect(await mongo.db.collection('adminsessions').countDocuments({ user: 'purged' })).toBe(0);
  });

  it('from the fifth failed login the account waits, longer each time, and a whole good login resets it', async () => {
    const users = new AdminUsers(mongo.db, clock);
    await users.create('slot', 'het goede wachtwoord');
    for (let i = 0; i < 5; i++) expect(await users.login('slot', 'fout wachtwoord')).toEqual({ ok: false, reason: 'invalid' });
    // Blocked for a minute: even the right password waits.
    expect(await users.login('slot', 'het goede wachtwoord')).toEqual({ ok: false, reason: 'blocked' });
    advance(61_000);
    expect(await users.login('slot', 'fout wachtwoord')).toEqual({ ok: false, reason: 'invalid' });
    advance(61_000); // the sixth failure blocks for two minutes
    expect(await users.login('slot', 'het goede wachtwoord')).toEqual({ ok: false, reason: 'blocked' });
    advance(60_000);
    expect(await users.login('slot', 'het goede wachtwoord')).toEqual({ ok: true, user: 'slot' });
    // The password alone does not reset the count (the second factor may still fail): a seventh failure waits 4 minutes.
    expect(await users.login('slot', 'fout wachtwoord')).toEqual({ ok: false, reason: 'invalid' });
    expect(await users.login('slot', 'het goede wachtwoord')).toEqual({ ok: false, reason: 'blocked' });
    advance(4 * 60_000 + 1000);
    expect(await users.login('slot', 'het goede wachtwoord')).toEqual({ ok: true, user: 'slot' });
    await users.succeeded('slot');
    expect(await users.login('slot', 'fout wachtwoord')).toEqual({ ok: false, reason: 'invalid' });
    expect(await users.login('slot', 'het goede wachtwoord')).toEqual({ ok: true, user: 'slot' });
  });

  it('refuses short passwords and odd names', async () => {
    const users = new AdminUsers(mongo.db, clock);
    await expect(users.create('kort', 'te kort')).rejects.toThrow(/12 to 1024/);
    await expect(users.create('met spatie', 'lang genoeg wachtwoord')).rejects.toThrow(/user name/);
  });
});
