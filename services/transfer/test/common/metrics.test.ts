import { Registry } from '@zgw/shared';
import { parseExposition, total } from '../../../api/test/metrics.helpers';
import { observe, registerTransferMetrics } from '../../src/common/metrics';

// What the transfer worker's progress reports count (the worker's port serves this registry).
test('a status reached is counted by status; a step that began and ended here is timed by step', async () => {
  const registry = new Registry();
  registerTransferMetrics(registry);
  const before = parseExposition(await registry.metrics());
  observe('o-1', { stap: 'gevalideerd', fase: 'start' });
  await new Promise((r) => setTimeout(r, 20));
  observe('o-1', { stap: 'gevalideerd', fase: 'einde' });
  observe('o-2', { stap: 'geverifieerd', fase: 'einde' }); // began on another worker: not timed
  observe('o-1', { status: 'afgerond' });
  const after = parseExposition(await registry.metrics());
  const moved = (name: string, labels: Record<string, string>) => total(after, name, labels) - total(before, name, labels);
  expect(moved('zgw_transfers_total', { status: 'afgerond' })).toBe(1);
  expect(moved('zgw_transfer_step_duration_seconds_count', { stap: 'gevalideerd' })).toBe(1);
  expect(moved('zgw_transfer_step_duration_seconds_sum', { stap: 'gevalideerd' })).toBeGreaterThanOrEqual(0.015);
  expect(moved('zgw_transfer_step_duration_seconds_count', { stap: 'geverifieerd' })).toBe(0);
});
