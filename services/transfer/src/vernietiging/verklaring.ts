import { z } from 'zod';
import { verklaringCsv, verklaringPdf, verklaringVan, zgwUrl } from '@zgw/shared';
import { lijstVan, type Uitvoer } from './lijst';

const Document = z.looseObject({ url: z.string().min(1) });

/**
 * The verklaring van vernietiging of a carried-out list, once: its moment fixed first in the list's record (a retry
 * writes the same), then, where the organisation designates a zaak for it (settings `verklaringZaak`,
 * `verklaringInformatieobjecttype`), the PDF and the CSV as documents with content in that zaak, each found again by its
 * identificatie on a retry (never twice); last the record says where they are. The rows and reviews stay in the
 * list's record and items, which are never destroyed.
 */
export async function maakVerklaring(u: Uitvoer): Promise<void> {
  let lijst = await lijstVan(u);
  if (lijst.verklaring) return;
  if (!lijst.uitvoering?.klaar) {
    await u.lijsten.updateOne({ _id: lijst._id, 'uitvoering.klaar': { $exists: false } }, { $set: { 'uitvoering.klaar': new Date() } });
    lijst = await lijstVan(u);
  }
  const op = lijst.uitvoering!.klaar!;
  const items = await u.items.find({ lijst: lijst._id, status: 'vernietigd' }).sort({ _id: 1 }).toArray();
  const { kop, regels } = verklaringVan(u.o.tenant, { ...lijst, uitvoering: { gestart: op, klaar: op } }, items);
  const instellingen = await u.instellingen.findOne({ soort: 'vernietiging' });
  const zaak = instellingen?.verklaringZaak ?? null;
  const iot = instellingen?.verklaringInformatieobjecttype ?? null;
  let pdf: string | null = null;
  let csv: string | null = null;
  if (zaak && iot) {
    const sleutel = lijst._id.replaceAll('-', '');
    const bewaar = async (soort: 'P' | 'C', inhoud: Buffer, formaat: string, bestandsnaam: string) => {
      const identificatie = `VV-${sleutel}-${soort}`;
      const eerder = await u.hier.all(
        zgwUrl(u.documenten, 'enkelvoudiginformatieobjecten', { identificatie, bronorganisatie: u.o.tenant }),
        Document,
      );
      const document =
        eerder[0]?.url ??
        (
          await u.hier.post(
            `${u.documenten}/enkelvoudiginformatieobjecten`,
            {
              identificatie,
              bronorganisatie: u.o.tenant,
              creatiedatum: op.toISOString().slice(0, 10),
              titel: `Verklaring van vernietiging ${lijst.naam}`.slice(0, 200),
              auteur: 'Archiefbeheer',
              taal: 'dut',
              formaat,
              bestandsnaam,
              inhoud: inhoud.toString('base64'),
              informatieobjecttype: iot,
              vertrouwelijkheidaanduiding: 'openbaar',
              status: 'definitief',
              indicatieGebruiksrecht: false,
            },
            Document,
          )
        ).url;
      const gekoppeld = await u.hier.all(zgwUrl(u.zaken, 'zaakinformatieobjecten', { zaak, informatieobject: document }), Document);
      if (!gekoppeld.length)
        await u.hier.post(`${u.zaken}/zaakinformatieobjecten`, {
          zaak,
          informatieobject: document,
          titel: `Verklaring van vernietiging ${lijst.naam}`.slice(0, 200),
        });
      return document;
    };
    pdf = await bewaar('P', await verklaringPdf(kop, regels), 'application/pdf', `verklaring-van-vernietiging-${lijst._id}.pdf`);
    csv = await bewaar('C', Buffer.from(verklaringCsv(kop, regels), 'utf8'), 'text/csv', `verklaring-van-vernietiging-${lijst._id}.csv`);
  }
  await u.lijsten.updateOne({ _id: lijst._id }, { $set: { verklaring: { zaak, pdf, csv, regels: regels.length, op }, bijgewerkt: new Date() } });
}
