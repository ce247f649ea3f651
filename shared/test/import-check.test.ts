import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/**
 * The import check (scripts/import-check.js) on small trees of its own: common/ of the API in layers, the transfer
 * worker's features apart. Each case fails when its part of the rule is not enforced.
 */
const SCRIPT = join(__dirname, '..', '..', 'scripts', 'import-check.js');

function check(files: Record<string, string>): { status: number | null; out: string } {
  const root = mkdtempSync(join(tmpdir(), 'import-check-'));
  try {
    for (const [file, text] of Object.entries(files)) {
      mkdirSync(dirname(join(root, file)), { recursive: true });
      writeFileSync(join(root, file), text);
    }
    const run = spawnSync(process.execPath, [SCRIPT], { env: { ...process.env, IMPORT_CHECK_ROOT: root }, encoding: 'utf8' });
    return { status: run.status, out: run.stdout + run.stderr };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

const COMMON = 'services/api/src/common';
const WORKER = 'services/transfer/src';

describe('common/ of the API in layers', () => {
  it('passes a layer importing the layers below it', () => {
    const r = check({
      [`${COMMON}/storage/store.ts`]: 'export const store = 1;\n',
      [`${COMMON}/http/errors.ts`]: 'export const errors = 1;\n',
      [`${COMMON}/platform/deps.ts`]:
        "import { store } from '../storage/store';\nimport { errors } from '../http/errors';\nexport const deps = store + errors;\n",
    });
    expect(r.out).toMatch(/0 upward imports/);
    expect(r.status).toBe(0);
  });

  it('fails an upward import, naming it, and counts it', () => {
    const r = check({
      [`${COMMON}/storage/store.ts`]: "import type { Deps } from '../platform/deps';\nexport type Store = Deps;\n",
      [`${COMMON}/platform/deps.ts`]: 'export interface Deps { a: number }\n',
    });
    expect(r.out).toMatch(/common\/storage\/store\.ts imports services\/api\/src\/common\/platform\/deps\.ts: an upward import/);
    expect(r.out).toMatch(/1 upward imports/);
    expect(r.status).toBe(1);
  });

  it('fails a file of common/ outside its layers', () => {
    const r = check({ [`${COMMON}/helpers/x.ts`]: 'export const x = 1;\n' });
    expect(r.out).toMatch(/common\/helpers\/x\.ts: common\/ holds only its layers/);
    expect(r.status).toBe(1);
  });
});

describe('the transfer worker, one folder per feature', () => {
  const base = {
    [`${WORKER}/common/context.ts`]: 'export const context = 1;\n',
    [`${WORKER}/overdracht/workflows.ts`]: "import { context } from '../common/context';\nexport const overdracht = context;\n",
    [`${WORKER}/importen/workflows.ts`]: "import { context } from '../common/context';\nexport const importeren = context;\n",
    [`${WORKER}/workflows.ts`]: "export * from './importen/workflows';\nexport * from './overdracht/workflows';\n",
  };

  it('passes features that share only common/, and an index of them all', () => {
    const r = check(base);
    expect(r.out).toMatch(/transfer features \(importen, overdracht\): 0 imports between features/);
    expect(r.status).toBe(0);
  });

  it('fails a feature importing another, and common/ importing a feature', () => {
    const r = check({
      ...base,
      [`${WORKER}/overdracht/activities.ts`]: "import { importeren } from '../importen/workflows';\nexport const a = importeren;\n",
      [`${WORKER}/common/inhoud.ts`]: "import { overdracht } from '../overdracht/workflows';\nexport const b = overdracht;\n",
    });
    expect(r.out).toMatch(/overdracht\/activities\.ts imports services\/transfer\/src\/importen\/workflows\.ts: a transfer feature imports no other/);
    expect(r.out).toMatch(/common\/inhoud\.ts imports services\/transfer\/src\/overdracht\/workflows\.ts/);
    expect(r.out).toMatch(/2 imports between features/);
    expect(r.status).toBe(1);
  });

  it('fails the API importing the worker', () => {
    const r = check({
      ...base,
      'services/api/src/components/overdrachten/overdracht-client.ts':
        "import type { overdracht } from '../../../../transfer/src/overdracht/workflows';\nexport type T = typeof overdracht;\n",
    });
    expect(r.out).toMatch(/the API imports nothing of the worker/);
    expect(r.status).toBe(1);
  });
});
