import { execFileSync } from 'node:child_process';
import {
  accessSync,
  constants,
  lstatSync,
  mkdirSync,
  readlinkSync,
  realpathSync,
  statSync,
  symlinkSync,
  unlinkSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { isExecutableFile, isThisCli } from '../mesh/command/controller-program';

/** The names the CLI answers to: `mesh`, and `mesh-runbook`, the plugin an operator's own mesh hands to. */
export const NAMES = ['mesh', 'mesh-runbook'] as const;
type Name = (typeof NAMES)[number];

export interface OnPathSetting {
  /** This checkout's bin/mesh.js. */
  cli: string;
  /** The directories on a new login shell's PATH, in order (asked again after one is made). */
  loginPath: () => string[];
  /** Where a link may go, best first: used when on the login PATH and writable (the last made if missing). */
  linkDirs: string[];
}

/** What was done for one name. */
type Outcome =
  | { name: Name; did: 'linked' | 'up to date'; file: string }
  | { name: Name; did: 'relinked'; file: string; was: string }
  | { name: Name; did: 'left'; file: string; program: string; ours: boolean }
  | { name: Name; did: 'unplaced' };

function isWritableDir(dir: string): boolean {
  try {
    accessSync(dir, constants.W_OK);
    return statSync(dir).isDirectory();
  } catch {
    return false;
  }
}

/** A symlink whose target is gone (a removed checkout's): nobody runs it any more. */
function isBrokenLink(file: string): boolean {
  try {
    return lstatSync(file).isSymbolicLink() && !isExecutableFile(file);
  } catch {
    return false;
  }
}

const existsAt = (file: string) => {
  try {
    lstatSync(file);
    return true;
  } catch {
    return false;
  }
};

/** The first `name` a shell with this PATH runs, as found (not resolved). */
function firstOnPath(name: string, path: string[]): string | undefined {
  return path.map((dir) => join(dir, name)).find(isExecutableFile);
}

/** The directory a link goes into: the first of `linkDirs` on the login PATH that is writable. */
function linkDir(setting: OnPathSetting): string | undefined {
  const usable = (path: string[]) => setting.linkDirs.find((dir) => path.includes(dir) && isWritableDir(dir));
  const found = usable(setting.loginPath());
  if (found) return found;
  // ~/.local/bin is on Debian's login PATH once it exists (~/.profile adds it then).
  const last = setting.linkDirs.at(-1);
  if (last === undefined || existsAt(last)) return undefined;
  try {
    mkdirSync(last, { recursive: true });
  } catch {
    return undefined;
  }
  return usable(setting.loginPath());
}

/** Replaces `file` (if anything is there) with a link to the CLI. */
function link(cli: string, file: string): void {
  if (existsAt(file)) unlinkSync(file);
  symlinkSync(cli, file);
}

/** `name` already runs `found` in a login shell. */
function placeOver(name: Name, cli: string, found: string, file: string | undefined): Outcome {
  const program = realpathSync(found);
  if (program === realpathSync(cli)) return { name, did: 'up to date', file: found };
  // A link of ours to another checkout of this CLI: the checkout whose bootstrap ran last is the one.
  if (found === file && lstatSync(found).isSymbolicLink() && isThisCli(program)) {
    link(cli, found);
    return { name, did: 'relinked', file: found, was: program };
  }
  // Another program by this name (the operator's real mesh controller), or this CLI installed otherwise
  // (npm install -g): not overwritten, nor shadowed by a link before it on the PATH.
  return { name, did: 'left', file: found, program, ours: isThisCli(program) };
}

function place(name: Name, setting: OnPathSetting, dir: string | undefined): Outcome {
  const file = dir === undefined ? undefined : join(dir, name);
  const found = firstOnPath(name, setting.loginPath());
  if (found !== undefined) return placeOver(name, setting.cli, found, file);
  if (file === undefined) return { name, did: 'unplaced' };
  if (!existsAt(file)) {
    link(setting.cli, file);
    return { name, did: 'linked', file };
  }
  if (!isBrokenLink(file)) return { name, did: 'left', file, program: file, ours: false };
  const was = readlinkSync(file);
  link(setting.cli, file);
  return { name, did: 'relinked', file, was: `${was}, gone` };
}

function phrase(o: Outcome): string {
  switch (o.did) {
    case 'linked':
    case 'up to date':
      return o.file;
    case 'relinked':
      return `relinked ${o.file} (was ${o.was})`;
    case 'left':
      if (o.ours) return `${o.file} is another install of this CLI (${o.program}), left alone`;
      return `${o.file} is another program, left alone${o.name === 'mesh' ? ': this CLI is mesh-runbook here' : ''}`;
    case 'unplaced':
      return `no writable directory on a login shell's PATH for ${o.name} (run ./bin/mesh.js)`;
  }
}

/** The step's one line: what was linked, what already was, what was left alone and why. */
export function sentence(outcomes: Outcome[]): string {
  const group = (did: Outcome['did'], say: (files: string) => string) => {
    const files = outcomes.filter((o) => o.did === did).map(phrase);
    return files.length > 0 ? [say(files.join(', '))] : [];
  };
  return [
    ...group('linked', (files) => `linked ${files}`),
    ...group('up to date', (files) => `up to date (${files})`),
    ...outcomes.filter((o) => !['linked', 'up to date'].includes(o.did)).map(phrase),
  ].join('; ');
}

/** Puts `mesh` and `mesh-runbook` on a login shell's PATH as links to this checkout's CLI, idempotently. */
export function putCliOnPath(setting: OnPathSetting): string {
  const dir = linkDir(setting);
  return sentence(NAMES.map((name) => place(name, setting, dir)));
}

/** The PATH of a new login shell, from a login bash with nothing of this process's environment but who it is. */
export function loginShellPath(): string[] {
  const env: NodeJS.ProcessEnv = {};
  for (const key of ['HOME', 'USER', 'LOGNAME', 'SHELL', 'LANG'])
    if (process.env[key]) env[key] = process.env[key];
  const said = execFileSync('bash', ['-lc', 'printf "\\n@path@%s@path@" "$PATH"'], {
    env,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
    timeout: 20_000,
  });
  const path = /@path@(.*)@path@/.exec(said)?.[1] ?? '';
  return path.split(delimiter).filter((dir) => dir !== '');
}

if (require.main === module) {
  process.stdout.write(
    `${putCliOnPath({
      cli: resolve(__dirname, '..', 'bin', 'mesh.js'),
      loginPath: loginShellPath,
      linkDirs: ['/usr/local/bin', join(homedir(), '.local', 'bin')],
    })}\n`,
  );
}
