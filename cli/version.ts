import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * This CLI's version, from the package.json above it (the repository's, whether it runs from cli/ or from
 * the compiled dist/cli/).
 */
export function meshVersion(from: string = __dirname): string {
  for (let dir = from; ; dir = dirname(dir)) {
    const found = versionIn(join(dir, 'package.json'));
    if (found !== undefined) return found;
    if (dirname(dir) === dir) return 'unknown';
  }
}

function versionIn(file: string): string | undefined {
  try {
    const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: unknown; version?: unknown };
    return pkg.name === 'mesh-runbook' && typeof pkg.version === 'string' ? pkg.version : undefined;
  } catch {
    return undefined;
  }
}
