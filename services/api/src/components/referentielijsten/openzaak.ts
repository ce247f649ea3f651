/** The Referentielijsten API that Open Zaak's catalogi name: always an alias of the platform's own. */
export const SELECTIELIJST_OPENZAAK = 'https://selectielijst.openzaak.nl/api/v1';

/**
 * The resultaattypeomschrijvingen of selectielijst.openzaak.nl (and VNG's referentielijsten-api, which has the same
 * UUIDs), by UUID: their UUIDs are not the ones of the data here, so they resolve by their omschrijving. Read from
 * public sources: Open Zaak's test copy of that service (open-zaak/open-zaak, src/openzaak/selectielijst/tests/files/,
 * EUPL-1.2; also ../shared/conformance/selectielijst_fixture) and the resultaattypen that Open Zaak, with that service,
 * stored with these URLs and their omschrijvingGeneriek (infonl/dimpact-zaakafhandelcomponent's test data, EUPL-1.2).
 * One not listed here is fetched from that service, when it answers.
 */
export const OPENZAAK_OMSCHRIJVINGEN: Readonly<Record<string, string>> = {
  'e6a0c939-3404-45b0-88e3-76c94fb80ea7': 'Afgewezen',
  'a6a0bd73-262a-401a-b629-9c4a908c69b5': 'Ingetrokken',
  'fb65d251-1518-4185-865f-b8bdcfad07b1': 'Toegekend',
  '7cb315fb-4f7b-4a43-aca1-e4522e4c73b3': 'Afgehandeld',
  'ce8cf476-0b59-496f-8eee-957a7c6e2506': 'Afgebroken',
  'f7d2dc14-1b71-4179-aed3-4e7abcfbeb0d': 'Verleend',
  '1f750958-431c-4916-bc01-af5d3a753b41': 'Geweigerd',
};
