import * as shared from '@zgw/shared';
import * as workflows from '../src/workflows';

/**
 * The workflow types the API starts are shared/'s (`*_WORKFLOW`); the worker registers its bundle index, where a
 * workflow's type is its exported name. A renamed or unexported workflow leaves the API's starts without a worker.
 */
describe('the workflow types', () => {
  const types = Object.entries(shared)
    .filter(([name, value]) => name.endsWith('_WORKFLOW') && typeof value === 'string')
    .map(([, value]) => value as string);

  it('shared/ names the types of the overdracht and the import', () => {
    expect(types).toEqual(expect.arrayContaining(['overdracht', 'importeren']));
  });

  it('every type shared/ names is a workflow of the bundle index under that name', () => {
    const exported = workflows as Record<string, unknown>;
    expect(types.filter((t) => typeof exported[t] !== 'function')).toEqual([]);
  });
});
