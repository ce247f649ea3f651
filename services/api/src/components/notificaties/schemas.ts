import { z } from 'zod';

/**
 * Notificaties API 1.0.0. Abonnement.callbackUrl and .auth are not held to 1.0.0's 200 and 1000 characters: 1.0.1
 * dropped those limits (#2571) because real tokens are longer; a generous bound stays.
 */
const Naam = z.string().min(1).max(50);
const Kenmerk = z.string().min(1).max(1000);

export const KanaalInput = z
  .object({
    naam: Naam,
    documentatieLink: z.union([z.literal(''), z.url().max(200)]).optional(),
    filters: z.array(z.string().min(1).max(100)).default([]),
  })
  .meta({ id: 'KanaalRequest' });

export const Kanaal = z
  .object({
    url: z.url(),
    naam: z.string(),
    documentatieLink: z.string(),
    filters: z.array(z.string()),
  })
  .meta({ id: 'Kanaal' });

export const KanaalQuery = z.object({ naam: z.string().optional() });

export const FilterGroup = z
  .object({
    naam: z.string().min(1),
    filters: z.record(z.string(), Kenmerk).default({}),
  })
  .meta({ id: 'FilterGroup' });

export const AbonnementInput = z
  .object({
    callbackUrl: z.url({ protocol: /^https?$/ }).max(2000),
    auth: z.string().min(1).max(10_000),
    kanalen: z.array(FilterGroup).max(100),
  })
  .meta({ id: 'AbonnementRequest' });

export const AbonnementPatch = AbonnementInput.partial();

export const Abonnement = z
  .object({
    url: z.url(),
    callbackUrl: z.string(),
    auth: z.string(),
    kanalen: z.array(z.object({ naam: z.string(), filters: z.record(z.string(), z.string()) })),
  })
  .meta({ id: 'Abonnement' });

/** A ZGW date-time: a full date and time, with a zone or without (read as UTC). */
const DateTime = z
  .string()
  .refine((s) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/.test(s) && !Number.isNaN(Date.parse(s)), {
    message: 'Datetime heeft het verkeerde formaat.',
    params: { code: 'invalid' },
  });

export const Message = z
  .object({
    kanaal: Naam,
    hoofdObject: z.url().min(1),
    resource: z.string().min(1).max(100),
    resourceUrl: z.url().min(1),
    actie: z.string().min(1).max(100),
    aanmaakdatum: DateTime,
    kenmerken: z.record(z.string(), Kenmerk).default({}),
  })
  .meta({ id: 'Message' });

/** The stored shapes are shared with services/notifier (shared/src/nrc.ts); the request schemas produce them. */
export type { KanaalFields as KanaalDoc, AbonnementFields as AbonnementDoc } from '@zgw/shared';
export type MessageBody = z.output<typeof Message>;

/** A kanaal's input as parsed (what the kanalen resource's prepare receives). */
export type KanaalIn = z.output<typeof KanaalInput>;
/** An abonnement's input as parsed (what the abonnementen resource's prepare receives). */
export type AbonnementIn = z.output<typeof AbonnementInput>;
