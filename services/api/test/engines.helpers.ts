import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

export const repo = join(__dirname, '..', '..', '..');

/** The folder scripts/engines.sh installed an engine into (installing it when needed). */
export function engineHome(name: 'mongo' | 'kafka' | 'temporal' | 's3'): string {
  const out = execFileSync('bash', [join(repo, 'scripts', 'engines.sh'), 'install', name], { encoding: 'utf8' });
  const home = /installed\s+(\S+)/.exec(out)?.[1];
  if (!home) throw new Error(`the engines script named no install folder for ${name}: ${out}`);
  return home;
}
