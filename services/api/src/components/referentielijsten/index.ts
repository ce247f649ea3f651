import { splitList } from '@zgw/shared';
import type { ComponentDef } from '../../common/platform/component';
import { Referentielijsten } from './lijsten';
import { SELECTIELIJST_OPENZAAK } from './openzaak';
import { registerRoutes } from './routes';

/**
 * The Referentielijsten & Selectielijst API (VNG's referentielijsten-api): the Selectielijst 2017 and 2020 and the
 * other referentielijsten, from data shipped with the platform (data/README.md), read without authorisation. The
 * default REFERENTIELIJSTEN_URL: the Catalogi check selectielijst URLs against it in process (Deps.fetchJson), also
 * those of selectielijst.openzaak.nl and REFERENTIELIJSTEN_ALIASSEN, by UUID.
 */
export const referentielijsten: ComponentDef = {
  name: 'referentielijsten',
  // (it has no autorisaties of its own; the catalogi configure with it)
  code: 'ztc',
  operationIds: 'retrieve',
  title: 'Referentielijsten & Selectielijst API',
  version: '1.0.0',
  open: true,
  register(api) {
    const aliassen = [SELECTIELIJST_OPENZAAK, ...splitList(api.deps.config.REFERENTIELIJSTEN_ALIASSEN)];
    const lijsten = new Referentielijsten(api.base, aliassen);
    registerRoutes(api, lijsten);
    api.deps.components.referentielijsten = lijsten;
  },
};
