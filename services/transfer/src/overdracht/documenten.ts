import { heartbeat } from '@temporalio/activity';
import { zgwUrl, type OverdrachtOpdracht } from '@zgw/shared';
import * as A from '../common/antwoorden';
import { routeOf, tracedOf, type Deps, type Kant } from '../common/context';
import { pick, vingerafdruk } from './bronzaak';
import { bronInhoud, INLINE_BYTES, klein, maakGroot, omvangEnHash } from '../common/inhoud';
import type { Plan } from './valideer';

const DOCUMENT = [
  'identificatie',
  'creatiedatum',
  'titel',
  'vertrouwelijkheidaanduiding',
  'auteur',
  'status',
  'formaat',
  'taal',
  'bestandsnaam',
  'link',
  'beschrijving',
  'ontvangstdatum',
  'verzenddatum',
  'ondertekening',
  'integriteit',
  'verschijningsvorm',
] as const;

/** What makes a document in the target the copy of one in the source (found by identificatie and organisation). */
const GELIJK = ['titel', 'creatiedatum', 'auteur', 'bestandsnaam', 'bestandsomvang', 'informatieobjecttype'] as const;

/** Source document URL -> copied document URL. */
export type Documenten = Record<string, string>;

/**
 * Step `documenten_gekopieerd`: every document linked to the zaak, once (however many links), with its content, in
 * the target organisation under its own identificatie (unless the target has another document by that number);
 * then the zaak's link to it. A copy is found by identificatie and bronorganisatie (and its content), a link by zaak
 * and informatieobject, before anything is made.
 */
export async function kopieerDocumenten(deps: Deps, o: OverdrachtOpdracht, plan: Plan, doelZaak: string): Promise<Documenten> {
  const { bron, doel } = await routeOf(deps, o);
  const zios = await bron.client.all(zgwUrl(bron.zaken, 'zaakinformatieobjecten', { zaak: o.zaak }), A.Zaakinformatieobject);
  const kopieen: Documenten = {};
  let n = 0;
  for (const zio of zios) {
    const bronDoc = zio.informatieobject;
    kopieen[bronDoc] ??= await kopieerDocument(bron, doel, plan, bronDoc);
    const links = await doel.client.all(
      zgwUrl(doel.zaken, 'zaakinformatieobjecten', { zaak: doelZaak, informatieobject: kopieen[bronDoc] }),
      A.Zaakinformatieobject,
    );
    if (!links.length)
      await doel.client.post(zgwUrl(doel.zaken, 'zaakinformatieobjecten'), {
        ...pick(zio, ['titel', 'beschrijving']),
        zaak: doelZaak,
        informatieobject: kopieen[bronDoc],
      });
    heartbeat(++n);
    deps.log.info({ ...tracedOf(o), document: n, van: zios.length }, 'overdracht: document gekopieerd');
  }
  return kopieen;
}

/**
 * The copy of a source document in the target, if there is one: the target document with its identificatie in the
 * target organisation and the same content (never the source document itself, should both be one organisation).
 */
export async function vindKopie(
  bron: Kant,
  doel: Kant,
  plan: Plan,
  url: string,
): Promise<{ doc: A.Informatieobject; kopie?: string; bezet: boolean }> {
  const doc = await bron.client.get(url, A.Informatieobject);
  const [found] = await doel.client.all(
    zgwUrl(doel.documenten, 'enkelvoudiginformatieobjecten', { identificatie: doc.identificatie, bronorganisatie: plan.rsin }),
    A.Informatieobject,
  );
  const zelfde =
    found &&
    found.url !== url &&
    vingerafdruk(found, GELIJK) === vingerafdruk({ ...doc, informatieobjecttype: plan.typen[doc.informatieobjecttype] }, GELIJK);
  return { doc, kopie: zelfde ? found.url : undefined, bezet: !!found && !zelfde };
}

async function kopieerDocument(bron: Kant, doel: Kant, plan: Plan, url: string): Promise<string> {
  const { doc, kopie, bezet: found } = await vindKopie(bron, doel, plan, url);
  if (kopie && !(await onvoltooid(doel, kopie))) return kopie;
  // An identificatie taken in the target by another document: the target numbers the copy.
  const velden = found ? DOCUMENT.filter((f) => f !== 'identificatie') : DOCUMENT;
  const body = {
    ...pick(doc, velden),
    bronorganisatie: plan.rsin,
    informatieobjecttype: plan.typen[doc.informatieobjecttype],
    // Set by the target when the gebruiksrechten are copied (below); false as in the source.
    indicatieGebruiksrecht: doc.indicatieGebruiksrecht === false ? false : null,
  };
  const createUrl = zgwUrl(doel.documenten, 'enkelvoudiginformatieobjecten');
  const omvang = doc.bestandsomvang ?? 0;
  let copy: A.Informatieobject;
  if (!doc.inhoud) copy = await doel.client.post(createUrl, { ...body, inhoud: null }, A.Informatieobject);
  else if (omvang <= INLINE_BYTES)
    copy = await doel.client.post(
      createUrl,
      { ...body, inhoud: (await klein(await bronInhoud(bron, doc.inhoud))).toString('base64') },
      A.Informatieobject,
    );
  else copy = await maakGroot(doel, createUrl, body, omvang, await bronInhoud(bron, doc.inhoud));
  await kopieerGebruiksrechten(bron, doel, url, copy.url);
  return copy.url;
}

/**
 * A copy left locked (a worker stopped while sending its bestandsdelen) is not finished: unlocked by force (the
 * transfer's client may), removed, and made again. True when it was.
 */
async function onvoltooid(doel: Kant, kopie: string): Promise<boolean> {
  const doc = await doel.client.get(kopie, A.Informatieobject);
  if (!doc.locked) return false;
  await doel.client.post(`${kopie}/unlock`, {});
  await doel.client.delete(kopie);
  return true;
}

const GEBRUIKSRECHT = ['startdatum', 'einddatum', 'omschrijvingVoorwaarden'] as const;

/** The document's gebruiksrechten on the copy (each found by its content first); the target then sets indicatieGebruiksrecht. */
async function kopieerGebruiksrechten(bron: Kant, doel: Kant, bronDoc: string, kopie: string): Promise<void> {
  const rechten = await bron.client.all(zgwUrl(bron.documenten, 'gebruiksrechten', { informatieobject: bronDoc }), A.Gebruiksrecht);
  if (!rechten.length) return;
  const bestaand = new Set(
    (await doel.client.all(zgwUrl(doel.documenten, 'gebruiksrechten', { informatieobject: kopie }), A.Gebruiksrecht)).map((r) =>
      vingerafdruk(r, GEBRUIKSRECHT),
    ),
  );
  for (const r of rechten) {
    if (!bestaand.has(vingerafdruk(r, GEBRUIKSRECHT)))
      await doel.client.post(zgwUrl(doel.documenten, 'gebruiksrechten'), { ...pick(r, GEBRUIKSRECHT), informatieobject: kopie });
  }
}

/** Size and SHA-256 of a document's content, read as a stream. */
export async function inhoudVan(k: Kant, doc: A.Informatieobject): Promise<{ omvang: number; sha256: string }> {
  return doc.inhoud ? omvangEnHash(k.client, doc.inhoud) : { omvang: 0, sha256: '' };
}
