import { createHash } from 'node:crypto';
import { ZgwClient, type InhoudControle, type StoredImport } from '@zgw/shared';
import type { z } from 'zod';
import { vergelijkInhoud } from '../../src/importen/inhoud';
import type { Bron } from '../../src/importen/bron';
import type { Run } from '../../src/importen/run';

// The import's content check: each version of each source document against what this platform says it holds (size
// and SHA-256 per version, one request per page of documents), the source's content read and hashed here.

const BRON = 'http://bron.test';
const HIER = 'http://hier.test';
const sha = (text: string) => createHash('sha256').update(text).digest('hex');

/** The source: documents (newest version in the list) and the content of each version. */
const bronDocs = [
  { uuid: 'a', versies: ['gelijk'] },
  { uuid: 'b', versies: ['eerste', 'tweede'] },
  { uuid: 'c', versies: ['andere bytes'] },
  { uuid: 'd', versies: ['korter'] },
  { uuid: 'e', versies: [null] },
  { uuid: 'f', versies: ['er niet'] },
  { uuid: 'g', versies: ['hier zonder'] },
];
const docUrl = (base: string, uuid: string) => `${base}/documenten/api/v1/enkelvoudiginformatieobjecten/${uuid}`;
const rep = (uuid: string, versie: number) => {
  const inhoud = bronDocs.find((d) => d.uuid === uuid)!.versies[versie - 1];
  const url = docUrl(BRON, uuid);
  return {
    url,
    identificatie: uuid,
    informatieobjecttype: `${BRON}/iot`,
    versie,
    inhoud: inhoud === null ? null : `${url}/download?versie=${versie}`,
  };
};

/** What this platform says it holds: as the source, but c's bytes differ, d's size, b lacks version 2, f is not here at all. */
const hier: InhoudControle['documenten'] = [
  { url: docUrl(HIER, 'a'), versies: [{ versie: 1, omvang: 6, sha256: sha('gelijk') }] },
  { url: docUrl(HIER, 'b'), versies: [{ versie: 1, omvang: 6, sha256: sha('eerste') }] },
  { url: docUrl(HIER, 'c'), versies: [{ versie: 1, omvang: 12, sha256: sha('andere BYTES') }] },
  { url: docUrl(HIER, 'd'), versies: [{ versie: 1, omvang: 5, sha256: sha('korte') }] },
  { url: docUrl(HIER, 'e'), versies: [{ versie: 1, omvang: null, sha256: null }] },
  { url: docUrl(HIER, 'g'), versies: [{ versie: 1, omvang: null, sha256: null }] },
];

function clients() {
  const asked: string[][] = [];
  const bronAsked: string[] = [];
  const bron = {
    page: async (url: string, schema: z.ZodType) => {
      expect(url).toBe(`${BRON}/documenten/api/v1/enkelvoudiginformatieobjecten`);
      return { results: bronDocs.map((d) => schema.parse(rep(d.uuid, d.versies.length))), next: null };
    },
    get: async (url: string, schema: z.ZodType) => {
      bronAsked.push(url);
      const [, uuid, versie] = /\/([a-z])(?:\?versie=(\d+))?$/.exec(url)!;
      const doc = bronDocs.find((d) => d.uuid === uuid)!;
      return schema.parse(rep(uuid!, Number(versie ?? doc.versies.length)));
    },
    download: async (url: string) => {
      const [, uuid, versie] = /\/([a-z])\/download\?versie=(\d+)$/.exec(url)!;
      return new Blob([bronDocs.find((d) => d.uuid === uuid)!.versies[Number(versie) - 1]!]).stream();
    },
  };
  const ours = {
    post: async (url: string, body: { documenten: string[] }, schema: z.ZodType) => {
      expect(url).toBe(`${HIER}/admin/api/v1/importen/inhoud-controle`);
      asked.push(body.documenten);
      return schema.parse({ documenten: hier.filter((d) => body.documenten.includes(d.url)) });
    },
  };
  return { bron: bron as unknown as Bron, hier: ours as unknown as ZgwClient, asked, bronAsked };
}

const run = (selectie?: StoredImport['selectie']) =>
  ({ run: { bron: BRON, apis: {}, selectie }, base: HIER, maxInhoud: 1e6, typen: new Map() }) as unknown as Omit<Run, 'bron' | 'hier'>;

test('each version differing in content, size or presence is reported with why; ours is asked once per page', async () => {
  const c = clients();
  const uit = await vergelijkInhoud({ ...run(), bron: c.bron, hier: c.hier });
  expect(c.asked).toEqual([bronDocs.map((d) => docUrl(HIER, d.uuid))]);
  const at = (uuid: string, v: number) => `${docUrl(BRON, uuid)}?versie=${v}`;
  const byUrl = (x: { url: string }, y: { url: string }) => x.url.localeCompare(y.url);
  expect([...uit.afwijkend].sort(byUrl)).toEqual([
    { url: at('b', 2), reden: 'ontbreekt hier' },
    { url: at('c', 1), reden: `SHA-256 ${sha('andere bytes')} in de bron, ${sha('andere BYTES')} hier` },
    { url: at('d', 1), reden: '6 bytes in de bron, 5 hier' },
    { url: at('f', 1), reden: 'ontbreekt hier' },
    { url: at('g', 1), reden: 'de inhoud ontbreekt hier' },
  ]);
  expect(uit.aantalAfwijkend).toBe(5);
  // a, b's first version, c, d, e, g: compared (f and b's second are not here)
  expect(uit.versies).toBe(6);
});

test('a limited run does not miss the documents it did not bring', async () => {
  const c = clients();
  const uit = await vergelijkInhoud({ ...run({ zaaktypen: [] }), bron: c.bron, hier: c.hier });
  expect(uit.afwijkend.map((a) => a.reden)).not.toContain('ontbreekt hier');
  expect(uit.aantalAfwijkend).toBe(3);
});

test('a limited run given the documents its links named reads only those, by URL, and only those here', async () => {
  const c = clients();
  const named = ['a', 'c', 'f'].map((uuid) => docUrl(BRON, uuid));
  const uit = await vergelijkInhoud({ ...run({ zaaktypen: ['X'] }), bron: c.bron, hier: c.hier }, named);
  // (no list of the source's documents: its page() would have been asked; f is not here, so not read)
  expect(c.bronAsked).toEqual([docUrl(BRON, 'a'), docUrl(BRON, 'c')]);
  expect(uit.versies).toBe(2);
  expect(uit.afwijkend.map((a) => a.url)).toEqual([`${docUrl(BRON, 'c')}?versie=1`]);
});
