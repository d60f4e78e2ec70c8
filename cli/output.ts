import pc from 'picocolors';

/** Results go to stdout; logs and errors to stderr. Colour only on a terminal (picocolors checks). */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

export function printLine(line = ''): void {
  process.stdout.write(`${line}\n`);
}

export function printError(message: string, suggestion?: string): void {
  process.stderr.write(`${pc.red('error:')} ${message}\n`);
  if (suggestion) process.stderr.write(`${pc.dim(suggestion)}\n`);
}

export const colour = pc;
