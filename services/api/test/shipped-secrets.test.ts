import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parse } from 'yaml';

/**
 * What the repository ships to run the platform (docker-compose.yml, deploy/) holds no secret that works: each is the
 * operator's own, asked for with `${NAME:?why}` (compose refuses to start without it), or empty. Prometheus sends the
 * operator's METRICS_TOKEN with every scrape.
 */
const ROOT = join(__dirname, '..', '..', '..');
/** A name (of a variable or a field) that holds a secret; an access key id or a client id names, it does not open. */
const SECRET_NAME = /secret|password|passwd|token|credential|(^|_)keys?$|secretkey|private/i;
const REQUIRED = /^\$\{([A-Z_][A-Z0-9_]*):\?[^}]*\}$/;
const EMPTY = /^\$\{([A-Z_][A-Z0-9_]*):?-\}$/;
/** Literal defaults that look like a secret someone meant to change. */
const PLACEHOLDER = /change[-_ ]?me|changeit|secret123|admin123|p@ssw0rd|geheim/i;

const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');
const compose = parse(read('docker-compose.yml'), { merge: true }) as {
  services: Record<string, { environment?: Record<string, unknown>; configs?: { source: string; target: string }[] }>;
  configs?: Record<string, { content?: string }>;
};

function filesUnder(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    const path = join(dir, name);
    return statSync(join(ROOT, path)).isDirectory() ? filesUnder(path) : [path];
  });
}

it("gives every service's secret only from the operator's environment (required, or empty), never a literal", () => {
  const shipped: string[] = [];
  for (const [service, def] of Object.entries(compose.services)) {
    for (const [name, value] of Object.entries(def.environment ?? {})) {
      if (!SECRET_NAME.test(name)) continue;
      const text = String(value);
      if (!REQUIRED.test(text) && !EMPTY.test(text)) shipped.push(`${service}.${name}: ${text}`);
    }
  }
  expect(shipped).toEqual([]);
  // the secrets the services need are asked for, not defaulted
  const api = compose.services.api!.environment!;
  for (const name of ['ZGW_PII_KEYS', 'TRANSFER_SECRET', 'AWS_SECRET_ACCESS_KEY', 'METRICS_TOKEN']) expect(String(api[name])).toMatch(REQUIRED);
});

it("keeps the secrets in the configs it writes (the s3 identities, Prometheus' token) the operator's too", () => {
  const literal: string[] = [];
  for (const [name, def] of Object.entries(compose.configs ?? {})) {
    const content = String(def.content ?? '').trim();
    if (SECRET_NAME.test(name) && !REQUIRED.test(content)) literal.push(`${name}: ${content}`);
    for (const m of content.matchAll(/"([A-Za-z_]+)"\s*:\s*"([^"]*)"/g)) {
      if (SECRET_NAME.test(m[1]!) && !REQUIRED.test(m[2]!)) literal.push(`${name}.${m[1]}: ${m[2]}`);
    }
  }
  expect(literal).toEqual([]);
  // the s3 service and the services that use it share one secret
  const identities = JSON.parse(compose.configs!['s3-identities']!.content!.replace(/\$\{[^}]*\}/g, 'x')) as unknown;
  expect(identities).toBeTruthy();
  expect(compose.configs!['s3-identities']!.content).toContain('${ZGW_S3_SECRET_KEY:?');
  expect(String(compose.services.api!.environment!.AWS_SECRET_ACCESS_KEY)).toContain('${ZGW_S3_SECRET_KEY:?');
});

it('ships no placeholder secret anywhere in docker-compose.yml or deploy/', () => {
  const found = ['docker-compose.yml', ...filesUnder('deploy')]
    .filter((file) => PLACEHOLDER.test(read(file)))
    .map((file) => relative(ROOT, join(ROOT, file)));
  expect(found).toEqual([]);
});

it('has Prometheus send METRICS_TOKEN with every scrape, from the file compose mounts', () => {
  const prometheus = parse(read('deploy/prometheus/prometheus.yml')) as {
    scrape_configs: { job_name: string; authorization?: { credentials_file?: string; credentials?: string } }[];
  };
  const mounted = compose.services.prometheus!.configs ?? [];
  for (const job of prometheus.scrape_configs) {
    expect({ job: job.job_name, credentials: job.authorization?.credentials }).toEqual({ job: job.job_name, credentials: undefined });
    const file = job.authorization?.credentials_file;
    expect({ job: job.job_name, file }).toEqual({ job: job.job_name, file: expect.any(String) });
    const source = mounted.find((c) => c.target === file)?.source;
    expect(source).toBeDefined();
    expect(compose.configs![source!]!.content!.trim()).toBe('${METRICS_TOKEN:?set METRICS_TOKEN}');
  }
});
