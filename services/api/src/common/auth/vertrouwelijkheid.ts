/** Vertrouwelijkheidaanduiding values, from least to most confidential. */
export const VERTROUWELIJKHEIDAANDUIDINGEN = [
  'openbaar',
  'beperkt_openbaar',
  'intern',
  'zaakvertrouwelijk',
  'vertrouwelijk',
  'confidentieel',
  'geheim',
  'zeer_geheim',
] as const;
export type Vertrouwelijkheidaanduiding = (typeof VERTROUWELIJKHEIDAANDUIDINGEN)[number];

export function vertrouwelijkheidRank(v: string): number {
  return VERTROUWELIJKHEIDAANDUIDINGEN.indexOf(v as Vertrouwelijkheidaanduiding);
}
