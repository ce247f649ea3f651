import { randomUUID } from 'node:crypto';
import type { AuditEntry, ReadEntry } from '@zgw/shared';

/** A write entry as the API makes it (a zaak created). */
export function auditEntry(over: Partial<AuditEntry> = {}): AuditEntry {
  const zaak = `http://127.0.0.1:8000/zaken/api/v1/zaken/${randomUUID()}`;
  return {
    uuid: randomUUID(),
    bron: 'ZRC',
    applicatieId: 'app',
    applicatieWeergave: 'App',
    gebruikersId: 'u1',
    gebruikersWeergave: 'U. Ser',
    actie: 'create',
    actieWeergave: 'Object aangemaakt',
    resultaat: 201,
    hoofdObject: zaak,
    resource: 'zaak',
    resourceUrl: zaak,
    toelichting: '',
    resourceWeergave: 'ZAAK-1',
    aanmaakdatum: new Date().toISOString(),
    wijzigingen: { oud: null, nieuw: { url: zaak } },
    ...over,
  };
}

/** A read entry as the API makes it (a detail GET of a zaak). */
export function readEntry(over: Partial<ReadEntry> = {}): ReadEntry {
  const zaak = `http://127.0.0.1:8000/zaken/api/v1/zaken/${randomUUID()}`;
  return {
    uuid: randomUUID(),
    bron: 'ZRC',
    clientId: 'reader',
    gebruikersId: 'u1',
    gebruikersWeergave: 'U. Ser',
    actie: 'retrieve',
    resource: 'zaak',
    request: '/zaken/api/v1/zaken/x',
    resourceUrl: zaak,
    hoofdObject: zaak,
    resultaat: 200,
    aanmaakdatum: new Date().toISOString(),
    ...over,
  };
}
