// HTTP for scripts/openzaak/check.js: a ZGW client (an HS256 token of its own, JSON in and out, the CRS headers the
// Zaken API asks for) and the reading of a whole list, page by page.
const { createHmac } = require('node:crypto');

const b64url = (x) => Buffer.from(typeof x === 'string' ? x : JSON.stringify(x)).toString('base64url');

/** A ZGW token (HS256) for a client id and its secret. */
function token(clientId, secret) {
  const head = `${b64url({ alg: 'HS256', typ: 'JWT' })}.${b64url({ iss: clientId, client_id: clientId, user_id: 'openzaak-check', user_representation: 'openzaak-check', iat: Math.floor(Date.now() / 1000) })}`;
  return `${head}.${createHmac('sha256', secret).update(head).digest('base64url')}`;
}

/** A client of one ZGW installation: call(method, url, body) answers { status, json, text, bytes }. */
function client(clientId, secret) {
  const auth = `Bearer ${token(clientId, secret)}`;
  async function call(method, url, body, extra = {}) {
    const headers = { authorization: auth, accept: 'application/json', 'accept-crs': 'EPSG:4326', ...extra };
    if (body !== undefined) Object.assign(headers, { 'content-type': 'application/json', 'content-crs': 'EPSG:4326' });
    for (let attempt = 1; ; attempt++) {
      try {
        const res = await fetch(url, {
          method,
          headers,
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: AbortSignal.timeout(120_000),
        });
        const bytes = Buffer.from(await res.arrayBuffer());
        const text = bytes.toString('utf8');
        let json;
        try {
          json = text ? JSON.parse(text) : undefined;
        } catch {
          json = undefined;
        }
        return { status: res.status, json, text, bytes };
      } catch (err) {
        if (attempt >= 3) throw new Error(`${method} ${url}: ${err.message}`);
        await new Promise((r) => setTimeout(r, 1000 * attempt));
      }
    }
  }
  /** A write that must succeed: its JSON answer. */
  async function write(method, url, body, ok = [200, 201]) {
    const res = await call(method, url, body);
    if (!ok.includes(res.status))
      throw new Error(`${method} ${url}: ${res.status} ${res.text.slice(0, 600)}\n  body: ${JSON.stringify(body).slice(0, 400)}`);
    return res.json;
  }
  const post = (url, body) => write('POST', url, body);
  /** Every object of a list, its pages followed (a plain array is one page). */
  async function all(url) {
    const out = [];
    for (let next = url; next;) {
      const res = await call('GET', next);
      if (res.status !== 200) throw new Error(`GET ${next}: ${res.status} ${res.text.slice(0, 300)}`);
      if (Array.isArray(res.json)) return out.concat(res.json);
      out.push(...res.json.results);
      next = res.json.next;
    }
    return out;
  }
  return { call, write, post, all };
}

module.exports = { token, client };
