import { z } from 'zod';
import { VERTROUWELIJKHEIDAANDUIDINGEN } from '../../common/auth/vertrouwelijkheid';

export const COMPONENTEN = ['ac', 'nrc', 'zrc', 'ztc', 'drc', 'brc'] as const;

export const COMPONENT_WEERGAVE: Record<(typeof COMPONENTEN)[number], string> = {
  ac: 'Autorisaties API',
  nrc: 'Notificaties API',
  zrc: 'Zaken API',
  ztc: 'Catalogi API',
  drc: 'Documenten API',
  brc: 'Besluiten API',
};

/** Empty strings count as "not given": clients send `"zaaktype": ""` for autorisaties without a type. */
const optionalUrl = z
  .union([z.literal(''), z.url().max(1000)])
  .optional()
  .nullable();

export const AutorisatieInput = z.object({
  component: z.enum(COMPONENTEN),
  scopes: z.array(z.string().min(1).max(100)),
  zaaktype: optionalUrl,
  informatieobjecttype: optionalUrl,
  besluittype: optionalUrl,
  maxVertrouwelijkheidaanduiding: z
    .enum(['', ...VERTROUWELIJKHEIDAANDUIDINGEN])
    .optional()
    .nullable(),
});

export const Autorisatie = z
  .object({
    component: z.enum(COMPONENTEN),
    componentWeergave: z.string().readonly(),
    scopes: z.array(z.string()),
    zaaktype: z.url().optional(),
    informatieobjecttype: z.url().optional(),
    besluittype: z.url().optional(),
    maxVertrouwelijkheidaanduiding: z.enum(VERTROUWELIJKHEIDAANDUIDINGEN).optional(),
  })
  .meta({ id: 'Autorisatie' });

export const ApplicatieInput = z
  .object({
    clientIds: z.array(z.string().min(1).max(50)),
    label: z.string().min(1).max(100),
    heeftAlleAutorisaties: z.boolean().default(false),
    alleenIsGereedVoorPublicatie: z.boolean().default(false),
    autorisaties: z.array(AutorisatieInput).default([]),
  })
  .meta({ id: 'ApplicatieRequest' });

export const ApplicatiePatch = z.object({
  clientIds: z.array(z.string().min(1).max(50)).optional(),
  label: z.string().min(1).max(100).optional(),
  heeftAlleAutorisaties: z.boolean().optional(),
  alleenIsGereedVoorPublicatie: z.boolean().optional(),
  autorisaties: z.array(AutorisatieInput).optional(),
});

export const Applicatie = z
  .object({
    url: z.url(),
    clientIds: z.array(z.string()),
    label: z.string(),
    heeftAlleAutorisaties: z.boolean(),
    alleenIsGereedVoorPublicatie: z.boolean(),
    autorisaties: z.array(Autorisatie),
  })
  .meta({ id: 'Applicatie' });

export const ApplicatieQuery = z.object({ clientIds: z.string().optional() });

export type ApplicatieDoc = Omit<z.output<typeof Applicatie>, 'url'>;
export type AutorisatieDoc = z.output<typeof Autorisatie>;

/** An applicatie's input as parsed (what the applicaties resource's prepare receives). */
export type ApplicatieIn = z.output<typeof ApplicatieInput>;
