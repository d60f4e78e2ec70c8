/** The runbook's context leads a pretty line; process and SDK bookkeeping fields are left out. */
const SHOWN_FIRST = ['runbookId', 'node', 'module', 'step'] as const;
const OMITTED = new Set(['level', 'time', 'msg', 'pid', 'hostname', 'name', 'taskToken', ...SHOWN_FIRST]);

/**
 * One JSON log line as a line for a terminal: `17:40:01.123 INFO  message runbookId=… node=… step=…
 * key=value …`, an error's stack on the lines below.
 */
export function prettyLine(json: string): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json.endsWith('\n') ? json : `${json}\n`;
  }
  const time = typeof entry.time === 'string' ? entry.time.slice(11, 23) : '';
  const level = String(entry.level ?? '').toUpperCase();
  const fields = [
    ...SHOWN_FIRST.filter((key) => entry[key] !== undefined).map((key) => [key, entry[key]] as const),
    ...Object.entries(entry).filter(([key]) => !OMITTED.has(key)),
  ]
    .map(([key, value]) => [key, key === 'error' ? errorMessage(value) : value] as const)
    .map(([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`);
  const stack = (entry.error as { stack?: unknown } | undefined)?.stack;
  const head = [time, level.padEnd(5), String(entry.msg ?? ''), ...fields].join(' ');
  return typeof stack === 'string' ? `${head}\n    ${stack.split('\n').join('\n    ')}\n` : `${head}\n`;
}

/** A stream for pino that writes each line it gets as prettyLine's rendering to `destination`. */
export function prettyStream(destination: NodeJS.WritableStream): { write(line: string): void } {
  return { write: (line) => void destination.write(prettyLine(line.trimEnd())) };
}

function errorMessage(error: unknown): unknown {
  return (error as { message?: unknown } | null)?.message ?? error;
}
