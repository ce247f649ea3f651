import { catalogus, create, iotBody, publish, type Referentielijsten } from './catalogi.fixtures';
import { randomBytes } from 'node:crypto';
import { inhoudStoreOf } from '../src/components/documenten/inhoud-store';
import { token, type TestApp } from './harness';
import { zaaktypeMetOnderdelen } from './zaken.fixtures';

export const DRC = '/documenten/api/v1';
export const EIO = `${DRC}/enkelvoudiginformatieobjecten`;

/** A published informatieobjecttype in a new catalogus. */
export async function informatieobjecttype(t: TestApp, over: Record<string, unknown> = {}): Promise<string> {
  const cat = await catalogus(t, `D${Math.floor(Math.random() * 10000)}`);
  const iot = await create(t, 'informatieobjecttypen', iotBody(cat, over));
  await publish(t, iot.url);
  return iot.url;
}

/**
 * A zaaktype with its onderdelen (zaken.fixtures) whose documents may be of a published informatieobjecttype
 * `bijlage` of its catalogus (its zaaktype-informatieobjecttype, inkomend).
 */
export async function zaaktypeMetBijlage(t: TestApp, sl: Referentielijsten): Promise<{ zaaktype: string; iot: string }> {
  const { zaaktype } = await zaaktypeMetOnderdelen(t, sl);
  const { catalogus: cat } = (await t.call('GET', zaaktype)).json();
  const type = await create(t, 'informatieobjecttypen', iotBody(cat, { omschrijving: 'bijlage' }));
  await publish(t, type.url);
  await create(t, 'zaaktype-informatieobjecttypen', { zaaktype, informatieobjecttype: 'bijlage', volgnummer: 1, richting: 'inkomend' });
  return { zaaktype, iot: type.url };
}

export const eioBody = (informatieobjecttype: string, over: Record<string, unknown> = {}) => ({
  bronorganisatie: '000000000',
  creatiedatum: '2024-03-01',
  titel: 'Aanvraag',
  auteur: 'J. de Vries',
  taal: 'dut',
  inhoud: Buffer.from('hallo wereld').toString('base64'),
  informatieobjecttype,
  ...over,
});

/** POSTs a document; throws with the body when it is not a 201. */
export async function createEio(t: TestApp, body: unknown, opts: { token?: string } = {}): Promise<Record<string, any>> {
  const res = await t.call('POST', EIO, body, opts);
  if (res.statusCode !== 201) throw new Error(`POST ${EIO} gave ${res.statusCode}: ${res.body}`);
  return res.json();
}

export async function lock(t: TestApp, url: string, opts: { token?: string } = {}): Promise<string> {
  const res = await t.call('POST', `${url}/lock`, undefined, opts);
  if (res.statusCode !== 200) throw new Error(`lock gave ${res.statusCode}: ${res.body}`);
  return res.json().lock;
}

/** A client whose applicatie has these Documenten autorisaties. */
export async function drcClient(t: TestApp, clientId: string, autorisaties: Record<string, unknown>[]): Promise<void> {
  await t.client(clientId, `${clientId}-secret`);
  const res = await t.call('POST', '/autorisaties/api/v1/applicaties', {
    clientIds: [clientId],
    label: clientId,
    autorisaties: autorisaties.map((a) => ({ component: 'drc', ...a })),
  });
  if (res.statusCode !== 201) throw new Error(`applicatie: ${res.body}`);
}

/** How many files the content store holds for this app (GridFS or S3, whichever INHOUD_STORE names). */
export async function storedFiles(t: TestApp): Promise<number> {
  const store = inhoudStoreOf(t.config.INHOUD_STORE, t.config, t.mongo.db, t.deps.log);
  let n = 0;
  for await (const _file of store.list(new Date(Date.now() + 60_000))) n++;
  return n;
}

/** A multipart/form-data body: the fields, then the file as field `inhoud` (as a bestandsdeel is uploaded). */
export function multipart(fields: Record<string, string>, file?: Buffer): { payload: Buffer; headers: Record<string, string> } {
  const boundary = `----zgw${randomBytes(8).toString('hex')}`;
  const parts: Buffer[] = [];
  for (const [name, value] of Object.entries(fields))
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
  if (file) {
    parts.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="inhoud"; filename="deel.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`,
      ),
      file,
      Buffer.from('\r\n'),
    );
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(parts), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

/** PUTs a bestandsdeel (its url as the API gave it) with the fields (the lock) and the part's bytes. */
export function putBestandsdeel(t: TestApp, url: string, fields: Record<string, string>, file?: Buffer) {
  const { payload, headers } = multipart(fields, file);
  return t.app.inject({
    method: 'PUT',
    url: url.replace('http://127.0.0.1:8000', ''),
    payload,
    headers: { ...headers, authorization: `Bearer ${token()}` },
  });
}
