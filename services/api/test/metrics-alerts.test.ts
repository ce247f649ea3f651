import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { createKafka, KafkaProbe, Registry } from '@zgw/shared';
import { registerNotifierMetrics } from '../../notifier/src/metrics';
import { registerTransferMetrics } from '../../transfer/src/common/metrics';
import { startApp } from './harness';

// The shipped alerting rules name only metrics that the services export.
const ROOT = join(__dirname, '..', '..', '..');

interface Rule {
  alert: string;
  expr: string;
  labels?: Record<string, string>;
  annotations?: { summary?: string };
}

test('every metric in deploy/prometheus/alerts.yml is exported by the API or a worker', async () => {
  const groups = (parse(readFileSync(join(ROOT, 'deploy', 'prometheus', 'alerts.yml'), 'utf8')) as { groups: { name: string; rules: Rule[] }[] })
    .groups;
  const rules = groups.flatMap((g) => g.rules);
  expect(rules.map((r) => r.alert).sort()).toEqual([
    'ZgwAbonnementFailing',
    'ZgwAbonnementLocked',
    'ZgwAuditSpoolGrowing',
    'ZgwConsumerLag',
    'ZgwNotifierNoLeaseHolder',
    'ZgwOutboxStuck',
    'ZgwServerErrors',
    'ZgwTransfersFailing',
  ]);

  const exported = new Set<string>();
  const t = await startApp();
  try {
    const text = (await t.call('GET', '/metrics', undefined, { token: null })).body;
    for (const m of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) exported.add(m[1]!);
  } finally {
    await t.close();
  }
  const workers = new Registry();
  const probe = new KafkaProbe(createKafka('127.0.0.1:1', 'unused'));
  // the notifier's include the consumer lag, which the audit worker exports too
  registerNotifierMetrics(workers, () => undefined, { probe, group: 'g', topics: [] }, t.deps.log);
  registerTransferMetrics(workers);
  for (const m of workers.getMetricsAsArray()) exported.add(m.name);

  for (const rule of rules) {
    expect(rule.labels?.severity).toMatch(/^(critical|warning|info)$/);
    expect(rule.annotations?.summary).toBeTruthy();
    const used = [...rule.expr.matchAll(/\b(zgw_[a-z0-9_]+)/g)].map((m) => m[1]!.replace(/_(bucket|count|sum)$/, ''));
    expect(used.length).toBeGreaterThan(0);
    for (const name of used) expect([rule.alert, exported.has(name) ? name : `${name} (not exported)`]).toEqual([rule.alert, name]);
  }
});
