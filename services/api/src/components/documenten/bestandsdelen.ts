import { inTenant } from '@zgw/shared';
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { Busboy } from '@fastify/busboy';
import type { FastifyRequest } from 'fastify';
import type { Collection, Document, Filter } from 'mongodb';
import { z } from 'zod';
import { UuidParams } from '../../common/platform/component';
import { ZgwError } from '../../common/http/errors';
import { LIVE, type Stored } from '../../common/storage/store';
import { BIJWERKEN, mustMayOnDocument, nonField, readyFilter, type Delen, type Documenten } from './context';
import { keepUpload, takeUpload, type Bestand } from './inhoud';
import { BestandsDeel, type EioDoc } from './schemas';

/** One part of a large document's content: uploaded by PUT /bestandsdelen/{uuid}, in any order. */
interface Deel {
  _id: string;
  _eio: string;
  volgnummer: number;
  omvang: number;
  voltooid: boolean;
  _inhoud?: string;
}

export const BestandsDeelRequest = z.object({ inhoud: z.unknown().optional(), lock: z.string().min(1) }).meta({ id: 'BestandsDeelRequest' });

/**
 * Large documents: created with `bestandsomvang` and no `inhoud`, the document is locked and gets bestandsdelen of
 * DRC_BESTANDSDEEL_BYTES each. Each part is uploaded as multipart/form-data (`inhoud` streamed straight into the
 * content store, `lock`); unlocking the document after the last part makes the parts its content (no copy: the
 * document's content is the parts' files in order, streamed one after the other).
 */
export class Bestandsdelen implements Delen {
  readonly coll: Collection<Deel>;

  constructor(private readonly d: Documenten) {
    this.coll = d.api.deps.db.collection<Deel>('bestandsdelen');
  }

  async ensureIndexes(): Promise<void> {
    await this.coll.createIndex({ _eio: 1, volgnummer: 1 });
  }

  url(uuid: string): string {
    return this.d.api.url('bestandsdelen', uuid);
  }

  /** The parts of a document of `omvang` bytes (stored before the document, so a document never lacks its parts). */
  async create(eio: string, omvang: number): Promise<number> {
    const size = this.d.api.deps.config.DRC_BESTANDSDEEL_BYTES;
    const delen: Deel[] = [];
    for (let at = 0, n = 1; at < omvang; at += size, n++)
      delen.push({ _id: randomUUID(), _eio: eio, volgnummer: n, omvang: Math.min(size, omvang - at), voltooid: false });
    if (delen.length) await this.coll.insertMany(delen);
    return delen.length;
  }

  of(eio: string): Promise<Deel[]> {
    return this.coll.find({ _eio: eio }).sort({ _eio: 1, volgnummer: 1 }).toArray();
  }

  /** The parts as a document shows them; the lock only to whoever has it already (the create's answer). */
  async view(eio: Stored<EioDoc>, lock = ''): Promise<z.output<typeof BestandsDeel>[]> {
    if (!eio._delen) return [];
    return (await this.of(eio._id)).map((p) => ({ url: this.url(p._id), volgnummer: p.volgnummer, omvang: p.omvang, voltooid: p.voltooid, lock }));
  }

  /**
   * Before a document is unlocked: complete parts become its content; incomplete ones refuse the unlock, unless
   * `giveUp` (then they are dropped, and the document has no content).
   */
  async complete(eio: Stored<EioDoc>, giveUp: boolean): Promise<void> {
    if (!eio._delen) return;
    const delen = await this.of(eio._id);
    const done = delen.every((p) => p.voltooid && p._inhoud);
    if (!done && !giveUp) throw nonField('incomplete-upload', 'Niet alle bestandsdelen zijn geüpload.');
    const files = done ? delen.map((p) => p._inhoud!) : null;
    await this.d.versies.coll.updateOne({ _id: `${eio._id}:${eio.versie}` }, { $set: { _inhoud: files }, $unset: { _sha256: '' } });
    await this.d.informatieobjecten.store.raw.updateOne({ _id: eio._id, ...LIVE }, { $set: { _inhoud: files }, $unset: { _delen: '' } });
    await this.coll.deleteMany({ _eio: eio._id });
    if (!done) await this.d.inhoud.delete(delen.map((p) => p._inhoud).filter((f): f is string => !!f));
  }

  /** Removes the parts of a document that goes, with what was uploaded of them. */
  async remove(eio: string): Promise<void> {
    const delen = await this.of(eio);
    await this.coll.deleteMany({ _eio: eio });
    await this.d.inhoud.delete(delen.map((p) => p._inhoud).filter((f): f is string => !!f));
  }

  register(): void {
    const { api } = this.d;
    api.route({
      method: 'PUT',
      path: '/bestandsdelen/:uuid',
      operationId: 'bestandsdeel_update',
      summary: 'Upload een bestandsdeel (multipart/form-data of application/x-www-form-urlencoded: inhoud en lock).',
      scopes: [BIJWERKEN],
      params: UuidParams,
      body: BestandsDeelRequest,
      bodyType: ['multipart/form-data', 'application/x-www-form-urlencoded'],
      auditHeaders: false,
      status: 200,
      response: BestandsDeel,
      // The file's response names the part's inhoud (write-only: never returned).
      declared: { response: BestandsDeel.extend({ inhoud: z.string().optional() }) },
      handler: async ({ req, caller, params, body }) => {
        const file = takeUpload(req);
        try {
          const deel = await this.coll.findOne({ _id: params.uuid });
          const eio = deel ? await this.d.informatieobjecten.store.findOne({ _id: deel._eio, ...readyFilter(caller) } as Filter<Document>) : null;
          if (!deel || !eio) throw ZgwError.notFound(`bestandsdeel ${params.uuid} bestaat niet.`);
          mustMayOnDocument(caller, eio, [BIJWERKEN]);
          if (body.lock !== eio._lock) throw nonField('incorrect-lock-id', 'De lock is niet juist.');
          if (!file) throw ZgwError.field('inhoud', 'required', 'Stuur de inhoud van het bestandsdeel mee.');
          if (file.size !== deel.omvang)
            throw ZgwError.field('inhoud', 'file-size', `Het bestandsdeel moet ${deel.omvang} bytes zijn, niet ${file.size}.`);
          await this.coll.updateOne({ _id: deel._id }, { $set: { voltooid: true, _inhoud: file.id } });
          if (deel._inhoud) await this.d.inhoud.delete([deel._inhoud]);
          return { url: this.url(deel._id), volgnummer: deel.volgnummer, omvang: deel.omvang, voltooid: true, lock: String(eio._lock) };
        } catch (err) {
          if (file) await this.d.inhoud.delete([file.id]);
          throw err;
        }
      },
    });
    this.parseForms();
  }

  /**
   * The two form encodings the file declares for PUT /bestandsdelen/{uuid}: the caller is authenticated first, then
   * the `inhoud` is streamed into the content store (a multipart file part; in the url-encoded form, the field's
   * percent-encoded bytes), at most one byte more than the part's omvang (a larger one is refused by size anyway); the
   * other fields form the body.
   */
  private parseForms(): void {
    const { api } = this.d;
    const route = `/${api.def.name}/api/v1/bestandsdelen/:uuid`;
    const parser = async (req: FastifyRequest, payload: Readable) => {
      if (req.routeOptions.url !== route) throw new ZgwError(415, 'unsupported_media_type', 'Gebruik Content-Type application/json.');
      const caller = await api.deps.auth.authenticate(req);
      if (!caller.hasAnyScope([BIJWERKEN])) throw ZgwError.forbidden(`Deze actie vereist de scope ${BIJWERKEN}.`);
      // the part and its file are the caller's tenant's
      return inTenant(caller.tenant, async () => {
        const uuid = (req.params as { uuid?: string }).uuid ?? '';
        const deel = await this.coll.findOne({ _id: uuid });
        if (!deel) throw ZgwError.notFound(`bestandsdeel ${uuid} bestaat niet.`);
        const { fields, file } = await this.readForm(req, payload, deel.omvang + 1);
        if (file) keepUpload(req, file);
        return fields;
      });
    };
    api.app.addContentTypeParser('multipart/form-data', parser);
    api.app.addContentTypeParser('application/x-www-form-urlencoded', parser);
  }

  private readForm(req: FastifyRequest, payload: Readable, maxFile: number): Promise<{ fields: Record<string, string>; file?: Bestand }> {
    return new Promise((resolve, reject) => {
      const fields: Record<string, string> = {};
      const urlencoded = String(req.headers['content-type']).startsWith('application/x-www-form-urlencoded');
      let busboy: Busboy;
      try {
        // Url-encoded, the content is a field: decoded as latin1, each character is one byte of it.
        busboy = new Busboy({
          headers: req.headers as never,
          defCharset: urlencoded ? 'latin1' : undefined,
          limits: { fileSize: maxFile, files: 1, fields: 10, fieldSize: urlencoded ? Math.max(maxFile, 1024) : 1024 },
        });
      } catch {
        return reject(ZgwError.field('nonFieldErrors', 'parse_error', 'De form-body is ongeldig.'));
      }
      let upload: Promise<Bestand> | undefined;
      busboy.on('field', (name: string, value: string) => {
        if (urlencoded && name === 'inhoud') upload = this.d.inhoud.fromStream(Readable.from([Buffer.from(value, 'latin1')]));
        else fields[name] = value;
      });
      busboy.on('file', (name: string, stream: Readable) => {
        if (name !== 'inhoud') return void stream.resume();
        upload = this.d.inhoud.fromStream(stream);
      });
      busboy.on('error', () => reject(ZgwError.field('nonFieldErrors', 'parse_error', 'De form-body is ongeldig.')));
      busboy.on('finish', () => {
        if (!upload) return resolve({ fields });
        upload.then((file) => resolve({ fields, file }), reject);
      });
      payload.on('error', reject);
      payload.pipe(busboy);
    });
  }
}
