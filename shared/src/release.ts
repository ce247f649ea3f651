import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The release label (`YYYY.MM.DD`), taken from the root package.json version. */
export function releaseLabel(): string {
  try {
    const pkg = JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')) as { version?: string };
    return pkg.version ?? 'unknown';
  } catch {
    return 'unknown';
  }
}
