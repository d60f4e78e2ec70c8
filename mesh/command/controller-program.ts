import { accessSync, constants, readFileSync, realpathSync, statSync } from 'node:fs';
import { delimiter, dirname, join, resolve } from 'node:path';
import { PACKAGE_ROOT } from '../package-root';

/** This package's root: where its package.json names its bins (`mesh`, `mesh-runbook`). */
const OWN_ROOT = PACKAGE_ROOT;

function readPackage(dir: string): { name?: unknown; bin?: unknown } | undefined {
  try {
    return JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: unknown; bin?: unknown };
  } catch {
    return undefined;
  }
}

const OWN_NAME = readPackage(OWN_ROOT)?.name;

/** Whether `path` is a file this process may execute (a symlink counts as what it points to). */
export function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/**
 * The file a controller program names, as spawn finds it, with every symlink resolved: a name with a slash
 * from `cwd`, else the first executable of that name on `path`. Undefined when there is none (the call
 * then fails as the program not found, which says so itself).
 */
export function resolveProgram(
  command: string,
  path: string | undefined,
  cwd = process.cwd(),
): string | undefined {
  const candidates = command.includes('/')
    ? [resolve(cwd, command)]
    : (path ?? '')
        .split(delimiter)
        .filter((dir) => dir !== '')
        .map((dir) => resolve(cwd, dir, command));
  const found = candidates.find(isExecutableFile);
  return found === undefined ? undefined : realpathSync(found);
}

/** The bins a package directory declares, as real paths. */
function binsOf(root: string): string[] {
  const bin = readPackage(root)?.bin;
  const entries = typeof bin === 'string' ? [bin] : bin && typeof bin === 'object' ? Object.values(bin) : [];
  return entries
    .filter((entry): entry is string => typeof entry === 'string')
    .flatMap((entry) => {
      try {
        return [realpathSync(resolve(root, entry))];
      } catch {
        return [];
      }
    });
}

/**
 * Whether a real path is this CLI: a bin of this package, or of another install of it (a global
 * `npm install`, another checkout), found by the package.json above the file.
 */
export function isThisCli(realFile: string): boolean {
  if (binsOf(OWN_ROOT).includes(realFile)) return true;
  for (let dir = dirname(realFile); dir !== dirname(dir); dir = dirname(dir)) {
    const found = readPackage(dir);
    if (found === undefined) continue;
    return found.name === OWN_NAME && binsOf(dir).includes(realFile);
  }
  return false;
}

/** The first of `commands` that resolves to this CLI, with the file it resolves to. */
export function commandCallingItself(
  commands: Iterable<string>,
  path: string | undefined,
): { command: string; resolved: string } | undefined {
  for (const command of new Set(commands)) {
    const resolved = resolveProgram(command, path);
    if (resolved !== undefined && isThisCli(resolved)) return { command, resolved };
  }
  return undefined;
}
