import type { FastifyInstance, FastifyReply } from 'fastify';
import { z } from 'zod';
import { PiiError, PiiPayloadCodec, type Payload } from '@zgw/shared';
import type { Deps } from '../common/platform/component';
import { ZgwError } from '../common/http/errors';
import { parseOrThrow } from '../common/http/validation';
import { adminCaller } from './rights';

/**
 * Temporal's codec server (its documented protocol): `POST <path>/decode` opens the sealed payloads of a transfer's
 * history for a platform administrator, `POST <path>/encode` seals payloads (what a signal or query sent from the UI
 * needs). Not for an organisation's administrator: the namespace is the platform's, and a sealed payload does not say
 * whose it is (an activity's result or failure carries no tenant), so no payload can be shown as one's own.
 * For `temporal workflow show --codec-endpoint <API>/admin/api/v1/temporal-codec --codec-auth "Bearer <token>"`, and
 * for Temporal's web UI at TEMPORAL_UI_URL (CORS for that origin only). Every decode is logged with who asked.
 */
export const CODEC_PATH = '/admin/api/v1/temporal-codec';

const Base64 = z.string().regex(/^[A-Za-z0-9+/]*={0,2}$/, 'Base64 verwacht.');
/** A payload in the protobuf JSON form the UI and the CLI send: metadata values and data in base64. */
const JsonPayload = z.object({ metadata: z.record(z.string(), Base64).default({}), data: Base64.default('') });
const CodecBody = z.object({ payloads: z.array(JsonPayload).max(10_000) }).meta({ id: 'TemporalCodecBody' });
type JsonPayload = z.infer<typeof JsonPayload>;

const fromJson = (p: JsonPayload): Payload => ({
  metadata: Object.fromEntries(Object.entries(p.metadata).map(([k, v]) => [k, Buffer.from(v, 'base64')])),
  data: Buffer.from(p.data, 'base64'),
});

const toJson = (p: Payload): JsonPayload => ({
  metadata: Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v ?? []).toString('base64')])),
  data: Buffer.from(p.data ?? []).toString('base64'),
});

export function registerTemporalCodec(app: FastifyInstance, deps: Deps): void {
  const codec = new PiiPayloadCodec(deps.pii);
  // TEMPORAL_UI_URL empty: no web UI, so no origin to allow (the CLI needs none)
  const origin = deps.config.TEMPORAL_UI_URL ? new URL(deps.config.TEMPORAL_UI_URL).origin : undefined;
  const cors = (reply: FastifyReply) =>
    origin ? reply.header('access-control-allow-origin', origin).header('access-control-allow-credentials', 'true').header('vary', 'Origin') : reply;

  for (const op of ['encode', 'decode'] as const) {
    app.options(`${CODEC_PATH}/${op}`, async (_req, reply) =>
      cors(reply)
        .header('access-control-allow-methods', 'POST, OPTIONS')
        .header('access-control-allow-headers', 'Authorization, Content-Type, X-Namespace')
        .header('access-control-max-age', '600')
        .code(204)
        .send(),
    );
    app.post(`${CODEC_PATH}/${op}`, async (req, reply) => {
      cors(reply);
      const caller = await adminCaller(deps, req, 'payloads van Temporal lezen');
      if (!caller.platformAdmin)
        throw ZgwError.forbidden('Alleen beheerders van het platform lezen payloads van Temporal: die zijn van alle organisaties.', 'platform-admin');
      const namespace = req.headers['x-namespace'];
      if (namespace !== undefined && namespace !== deps.config.TEMPORAL_NAMESPACE) {
        throw ZgwError.field('X-Namespace', 'invalid', `Deze codec hoort bij namespace "${deps.config.TEMPORAL_NAMESPACE}".`);
      }
      const { payloads } = parseOrThrow(CodecBody, req.body ?? {});
      let out: Payload[];
      try {
        out = await (op === 'encode' ? codec.encode(payloads.map(fromJson)) : codec.decode(payloads.map(fromJson)));
      } catch (err) {
        if (err instanceof PiiError) throw ZgwError.field('payloads', 'invalid', err.message);
        throw ZgwError.field('payloads', 'invalid', 'Een payload is geen geldige Temporal payload.');
      }
      if (op === 'decode') req.log.info({ by: caller.clientId, payloads: payloads.length }, 'temporal payloads opened through the codec');
      return { payloads: out.map(toJson) };
    });
  }
}
