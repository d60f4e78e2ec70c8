import pc from 'picocolors';
import { jsonSafe } from './terminal-text';

/** Colour only on a terminal: picocolors alone also colours under CI=true, which scripts then have to strip. */
function coloursFor(stream: NodeJS.WriteStream): ReturnType<typeof pc.createColors> {
  const env = process.env;
  const wanted =
    'FORCE_COLOR' in env || (Boolean(stream.isTTY) && !('NO_COLOR' in env) && env.TERM !== 'dumb');
  return pc.createColors(wanted);
}

/** Colours for what goes to stdout (results) and to stderr (errors, notes). */
export const colour = coloursFor(process.stdout);
export const errorColour = coloursFor(process.stderr);

/**
 * Whether stdout is a terminal that can redraw lines in place (spinners, a live step list). Never under a
 * pipe, a file, TERM=dumb or CI: there every change is printed once, as a line of its own.
 */
export function isLiveTerminal(stream: NodeJS.WriteStream = process.stdout): boolean {
  const env = process.env;
  return Boolean(stream.isTTY) && env.TERM !== 'dumb' && !env.CI;
}

/** Results go to stdout; logs and errors to stderr. */
export function printJson(value: unknown): void {
  process.stdout.write(`${jsonSafe(JSON.stringify(value, null, 2))}\n`);
}

/** One JSON object per line, for commands that report as they go (`watch --json`): `jq -c` reads them. */
export function printJsonLine(value: unknown): void {
  process.stdout.write(`${jsonSafe(JSON.stringify(value))}\n`);
}

export function printLine(line = ''): void {
  process.stdout.write(`${line}\n`);
}

/** A word as a shell reads it back: as it is when it is plain, else in single quotes. */
export function shellWord(word: string): string {
  return /^[\w./:=@%+-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

export function printError(message: string, suggestion?: string): void {
  process.stderr.write(`${errorColour.red('error:')} ${message}\n`);
  if (suggestion) process.stderr.write(`${errorColour.dim(suggestion)}\n`);
}
