import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The release label: the date of the release as `YYYY.MM.DD`, from the root package.json version (set by
 * `npm run release`, stored as semver without leading zeros: 2026.1.5 reads 2026.01.05).
 */
export function releaseLabel(): string {
  try {
    const pkg = JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')) as { version?: string };
    return labelOf(pkg.version ?? 'unknown');
  } catch {
    return 'unknown';
  }
}

export function labelOf(version: string): string {
  const m = /^(\d{4})\.(\d{1,2})\.(\d{1,2})$/.exec(version);
  return m ? `${m[1]}.${m[2]!.padStart(2, '0')}.${m[3]!.padStart(2, '0')}` : version;
}
