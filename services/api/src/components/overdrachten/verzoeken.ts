import {
  DOELREGISTRATIES_COLLECTION,
  ZgwClient,
  doelregistratieId,
  openSecret,
  scrubUrl,
  traced,
  type Logger,
  type StoredDoelregistratie,
} from '@zgw/shared';
import { z } from 'zod';
import { ZgwError } from '../../common/http/errors';
import { vertrouwelijkheidRank } from '../../common/auth/vertrouwelijkheid';
import { catalogiOf } from '../../common/platform/links';
import { OVERDRAGEN, type Overdrachten } from './context';
import { newOverdracht } from './overdrachten';
import { Overdracht, VerzoekInput, type OverdrachtAuth } from './schemas';

/** How long reading the sender's zaak may take while the request waits (the workflow reads it again, with retries). */
const READ_TIMEOUT_MS = 10_000;

/**
 * `POST /verzoeken`: a registered external system (a doelregistratie with route `extern`) asks this platform to take
 * over one of its zaken. The zaak is read at once with the stored client id and secret of that system, to find the
 * local zaaktype its mapping gives: the caller needs `zaken.overdragen` for that zaaktype (403 otherwise). A zaak
 * that cannot be read, or whose zaaktype is not mapped, is accepted (201) and refused by the workflow with its code.
 */
export function registerVerzoeken(o: Overdrachten): void {
  const log = o.api.deps.log;
  o.api.route({
    method: 'POST',
    path: '/verzoeken',
    operationId: 'verzoek_create',
    summary: 'Vraag dit platform een zaak van een ander systeem over te nemen.',
    scopes: [OVERDRAGEN],
    body: VerzoekInput,
    response: Overdracht,
    handler: async ({ req, caller, body }) => {
      const registraties = o.api.deps.db.collection<StoredDoelregistratie>(DOELREGISTRATIES_COLLECTION);
      const doel = await registraties.findOne({ _id: body.bronSysteem });
      if (!doel || doel.route !== 'extern' || !doel.clientId || !doel.secret) {
        log.info({ ...traced(body.bronZaak), clientId: caller.clientId }, 'overdrachtverzoek geweigerd: onbekend bronsysteem (400)');
        throw ZgwError.field('bronSysteem', 'does_not_exist', `Er is geen extern systeem (doelregistratie met route extern) "${body.bronSysteem}".`);
      }
      const bron = await readSource(
        new ZgwClient({ clientId: doel.clientId, secret: openSecret(o.api.deps.pii, 'doelregistratie', doel.secret) }, READ_TIMEOUT_MS),
        body.bronZaak,
        log,
      );
      const koppeling = bron && doel.zaaktypen.find((k) => k.bron === bron.zaaktypeIdentificatie);
      let auth: OverdrachtAuth = { _zaaktype: '', _vertrouwelijkheid: 0 };
      if (bron && koppeling) {
        const vertrouwelijkheid = bron.vertrouwelijkheidaanduiding;
        const local = await localZaaktypen(o, koppeling.doel);
        const allowed = local.find((url) => caller.allows('zrc', OVERDRAGEN, 'zaaktype', url, vertrouwelijkheid));
        if (!allowed) {
          log.info(
            { ...traced(bron.identificatie), clientId: caller.clientId },
            'overdrachtverzoek geweigerd: de client mag dit zaaktype niet overnemen (403)',
          );
          throw ZgwError.forbidden(`Overnemen vereist de scope ${OVERDRAGEN} voor het zaaktype ${koppeling.doel} van dit platform.`);
        }
        auth = { _zaaktype: allowed, _vertrouwelijkheid: vertrouwelijkheidRank(vertrouwelijkheid) };
      }
      const doc = newOverdracht(
        {
          zaak: body.bronZaak,
          zaakIdentificatie: bron?.identificatie ?? body.bronZaak,
          doelregistratie: body.bronSysteem,
          doelregistratieId: await doelregistratieId(registraties, doel),
          richting: 'in',
          toelichting: body.toelichting,
          antwoordUrl: body.antwoordUrl,
        },
        { ...auth, _bronorganisatie: bron?.bronorganisatie ?? '' },
      );
      return o.begin(o.overdrachten, doc, caller, req);
    },
  });
}

interface Bron {
  identificatie: string;
  bronorganisatie: string;
  vertrouwelijkheidaanduiding: string;
  zaaktypeIdentificatie: string;
}

/** What a request's zaak of another system must show (checked where it enters). */
const BronZaak = z.looseObject({
  zaaktype: z.string(),
  identificatie: z.string(),
  bronorganisatie: z.string(),
  vertrouwelijkheidaanduiding: z.string(),
});
const BronZaaktype = z.looseObject({ identificatie: z.string() });

/** The sender's zaak and its zaaktype's identificatie, or undefined (logged with why) when either cannot be read now. */
export async function readSource(client: ZgwClient, url: string, log: Logger): Promise<Bron | undefined> {
  try {
    const zaak = await client.get(url, BronZaak);
    const zaaktype = await client.get(zaak.zaaktype, BronZaaktype);
    const { identificatie, bronorganisatie, vertrouwelijkheidaanduiding } = zaak;
    return { identificatie, bronorganisatie, vertrouwelijkheidaanduiding, zaaktypeIdentificatie: zaaktype.identificatie };
  } catch (err) {
    log.warn(
      { bronZaak: scrubUrl(url), err },
      "overdrachtverzoek: the sender's zaak or its zaaktype cannot be read now; the request is kept without them",
    );
    return undefined;
  }
}

/** URLs of this platform's published zaaktypen with that identificatie. */
async function localZaaktypen(o: Overdrachten, identificatie: string): Promise<string[]> {
  const catalogi = catalogiOf(o.api);
  const found = await catalogi.zaaktypen.store.find(
    { concept: false, identificatie },
    { limit: 50, sort: { identificatie: 1, beginGeldigheid: 1, _id: 1 } },
  );
  return found.map((z) => catalogi.zaaktypen.url(z._id));
}
