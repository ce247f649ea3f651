import { naastElkaar } from '../../src/importen/pagina';

// Which pages of the registration import may be stored beside the pages before them (two writes under way): never
// zaken and documents (they may name one another), statussen only when the source says which one is a zaak's last.

const status = (laatste?: boolean) => ({
  url: 'http://bron/zaken/api/v1/statussen/1',
  ...(laatste === undefined ? {} : { indicatieLaatstGezetteStatus: laatste }),
});

test('zaken and documents one write at a time', () => {
  expect(naastElkaar('zaken', [{ url: 'z' }])).toBe(false);
  expect(naastElkaar('enkelvoudiginformatieobjecten', [{ url: 'd' }])).toBe(false);
});

test('the other parts of a zaak beside the pages before them', () => {
  for (const collection of ['rollen', 'zaakinformatieobjecten', 'besluiten', 'gebruiksrechten'])
    expect(naastElkaar(collection, [{ url: 'x' }])).toBe(true);
});

test("statussen beside one another only when each says whether it is its zaak's last", () => {
  expect(naastElkaar('statussen', [status(false), status(true)])).toBe(true);
  // an older source does not say: the statussen of a zaak must come in order
  expect(naastElkaar('statussen', [status(false), status()])).toBe(false);
});
