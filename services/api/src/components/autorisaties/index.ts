import { z } from 'zod';
import type { ComponentDef } from '../../common/platform/component';
import { ZgwError } from '../../common/http/errors';
import { Resource } from '../../common/platform/resource';
import { checkAutorisaties, normalise } from './rules';
import { Applicatie, ApplicatieInput, ApplicatiePatch, ApplicatieQuery, type ApplicatieDoc, type ApplicatieIn } from './schemas';

const READ = ['autorisaties.lezen'];
const WRITE = ['autorisaties.bijwerken'];

/** What the Autorisaties component offers the rest of the platform. */
export interface Autorisaties {
  applicaties: Resource<ApplicatieDoc>;
}

declare module '../../common/platform/deps' {
  interface Components {
    /** Read by the admin screens, which manage applicaties through the same resource. */
    autorisaties: Autorisaties;
  }
}

/** Autorisaties API 1.1.0 (1.0.0 clients keep working: the only addition is an optional field). */
export const autorisaties: ComponentDef = {
  name: 'autorisaties',
  code: 'ac',
  operationIds: 'read',
  wholePatchBodies: true,
  title: 'Autorisaties API',
  version: '1.1.0',
  async register(api) {
    const applicaties: Resource<ApplicatieDoc, ApplicatieIn> = new Resource<ApplicatieDoc, ApplicatieIn, z.output<typeof ApplicatieQuery>>(api, {
      collection: 'applicaties',
      resource: 'applicatie',
      schema: Applicatie,
      input: ApplicatieInput,
      patchInput: ApplicatiePatch,
      query: ApplicatieQuery,
      filter: (q) => {
        const ids = (q.clientIds as string | undefined)?.split(',').filter(Boolean);
        return ids?.length ? { clientIds: { $in: ids } } : {};
      },
      scopes: { read: READ, create: WRITE, update: WRITE, destroy: WRITE },
      kanaal: 'autorisaties',
      prepare: async (input, ctx) => {
        const errors = checkAutorisaties(input.heeftAlleAutorisaties, input.autorisaties);
        // ac-001: a client id belongs to one applicatie only.
        const taken = await applicaties.store.findOne({ clientIds: { $in: input.clientIds }, _id: { $ne: ctx.uuid } });
        if (taken)
          errors.unshift({
            name: 'clientIds',
            code: 'clientId-exists',
            reason: 'Een of meer clientIds zijn al in gebruik bij een andere applicatie.',
          });
        if (new Set(input.clientIds).size !== input.clientIds.length) {
          errors.push({ name: 'clientIds', code: 'unique', reason: 'Een clientId staat dubbel in de lijst.' });
        }
        if (errors.length) throw ZgwError.validation(errors);
        return { ...input, autorisaties: input.autorisaties.map(normalise) };
      },
    });
    await applicaties.store.ensureIndexes([{ key: { clientIds: 1 }, unique: true, sparse: true }]);
    // The admin screens manage applicaties through the same resource (rules, notifications).
    api.deps.components.autorisaties = { applicaties };

    api.route({
      method: 'GET',
      path: '/applicaties/consumer',
      operationId: 'applicatie_consumer',
      summary: 'Vraag de applicatie op van een consumer (client_id).',
      scopes: READ,
      query: z.object({ clientId: z.string().min(1) }),
      response: Applicatie,
      handler: async ({ query }) => {
        const app = await applicaties.store.findOne({ clientIds: query.clientId });
        if (!app) throw ZgwError.notFound(`Geen applicatie met clientId "${query.clientId}".`);
        return applicaties.toApi(app);
      },
    });
  },
};
