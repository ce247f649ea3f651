import { z } from 'zod';
import type { ComponentApi } from '../../common/platform/component';
import { UuidParams } from '../../common/platform/component';
import { ZgwError } from '../../common/http/errors';
import { envelope, parsePage, PAGE_SIZE } from '../../common/http/pagination';
import type { FastifyRequest } from 'fastify';
import { uuidAtEnd } from '../../common/http/urls';
import type { Collection, Referentielijsten } from './lijsten';
import {
  CommunicatieKanaal,
  CommunicatieKanalen,
  Health,
  PageQuery,
  ProcesType,
  ProcestypenQuery,
  Resultaat,
  Resultaten,
  ResultatenQuery,
  ResultaattypeOmschrijvingGeneriek,
} from './schemas';

const SELECTIELIJST =
  'Procestypen worden gerefereerd in zaaktypecatalogi - bij het configureren van een zaaktype wordt aangegeven welk procestype van toepassing is, zodat het archiefregime van zaken bepaald kan worden.';

const ENKELVOUD: Record<Collection, string> = {
  procestypen: 'procestype',
  resultaten: 'resultaat',
  resultaattypeomschrijvingen: 'resultaattypeomschrijving',
  communicatiekanalen: 'communicatiekanaal',
};

/** A page of `items` (100 each, as the Referentielijsten API pages), its links keeping the request's filters. */
function page<T>(api: ComponentApi, req: FastifyRequest, raw: string | undefined, items: T[]) {
  const p = parsePage(raw);
  return envelope(`${api.deps.urls.base}${req.url}`, p, items.length, items.slice((p - 1) * PAGE_SIZE, p * PAGE_SIZE));
}

/** The detail route of one collection: the object by its UUID, or a 404 in the ZGW problem format. */
function detail(api: ComponentApi, lijsten: Referentielijsten, collection: Collection, operationId: string, response: z.ZodType, summary: string) {
  api.route({
    method: 'GET',
    path: `/${collection}/:uuid`,
    operationId,
    summary,
    scopes: [],
    params: UuidParams,
    response,
    handler: async ({ params }) => {
      const found = lijsten.detail(collection, params.uuid);
      if (!found) throw ZgwError.notFound(`Er is geen ${ENKELVOUD[collection]} met UUID ${params.uuid}.`);
      return found;
    },
  });
}

/** The Referentielijsten API's routes, read without authorisation (ComponentDef.open). */
export function registerRoutes(api: ComponentApi, lijsten: Referentielijsten): void {
  api.route({
    method: 'GET',
    path: '/procestypen',
    operationId: 'procestypen_list',
    summary: `Ontsluit de selectielijst procestypen (2017 en 2020; \`jaar\` kiest er een). ${SELECTIELIJST}`,
    scopes: [],
    query: ProcestypenQuery,
    response: z.array(ProcesType),
    handler: async ({ query }) => lijsten.procestypenLijst(query.jaar === undefined ? undefined : Number(query.jaar)),
  });
  detail(api, lijsten, 'procestypen', 'procestypen_retrieve', ProcesType, `Ontsluit een selectielijst procestype. ${SELECTIELIJST}`);

  api.route({
    method: 'GET',
    path: '/resultaten',
    operationId: 'resultaten_list',
    summary: 'Ontsluit de selectielijst resultaten, gepagineerd; `procesType` (of `proces_type`) kiest die van één procestype, vergeleken op UUID.',
    scopes: [],
    query: ResultatenQuery,
    response: Resultaten,
    handler: async ({ req, query }) => {
      const filters = [query.procesType, query.proces_type].filter((u): u is string => u !== undefined);
      // A procestype URL that ends in no UUID names none of them: nothing matches.
      const uuids = filters.map((u) => uuidAtEnd(u) ?? '');
      return page(api, req, query.page, lijsten.resultatenLijst(uuids));
    },
  });
  detail(api, lijsten, 'resultaten', 'resultaten_retrieve', Resultaat, 'Ontsluit een selectielijst resultaat.');

  api.route({
    method: 'GET',
    path: '/resultaattypeomschrijvingen',
    operationId: 'resultaattypeomschrijvinggeneriek_list',
    summary: 'Raadpleeg de generieke resultaattypeomschrijvingen.',
    scopes: [],
    response: z.array(ResultaattypeOmschrijvingGeneriek),
    handler: async () => lijsten.omschrijvingenLijst(),
  });
  detail(
    api,
    lijsten,
    'resultaattypeomschrijvingen',
    'resultaattypeomschrijvinggeneriek_retrieve',
    ResultaattypeOmschrijvingGeneriek,
    'Raadpleeg een generieke resultaattypeomschrijving.',
  );

  api.route({
    method: 'GET',
    path: '/communicatiekanalen',
    operationId: 'communicatiekanaal_list',
    summary: 'Raadpleeg de communicatiekanalen, gepagineerd.',
    scopes: [],
    query: PageQuery,
    response: CommunicatieKanalen,
    handler: async ({ req, query }) => page(api, req, query.page, lijsten.kanalenLijst()),
  });
  detail(api, lijsten, 'communicatiekanalen', 'communicatiekanaal_retrieve', CommunicatieKanaal, 'Raadpleeg een communicatiekanaal.');

  api.route({
    method: 'GET',
    path: '/health',
    operationId: 'health_retrieve',
    summary: 'Controleer of de api online is.',
    scopes: [],
    response: Health,
    handler: async () => ({ healthy: true, time: new Date().toISOString() }),
  });
}
