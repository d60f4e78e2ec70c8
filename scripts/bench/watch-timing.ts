import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { cliEnv, MESH, type CliServer } from './cli-timing';

/** How quickly `mesh runbook watch` showed a runbook's first wait. */
export interface WatchTiming {
  command: string;
  exitCode: number;
  /** The wait began (the status's waiting.since) -> watch printed its end line saying so. */
  shownAfterMs: number | undefined;
}

/**
 * Starts `mesh runbook watch <name> --json` as an operator would right after a start, and resolves once it
 * exits (it stops at the first wait): how long after the wait began its line was printed.
 */
export function watchFirstWait(server: CliServer, name: string): Promise<WatchTiming> {
  const child = spawn(process.execPath, [MESH, 'runbook', 'watch', name, '--json'], {
    env: cliEnv(server),
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  let shownAfterMs: number | undefined;
  createInterface({ input: child.stdout }).on('line', (line) => {
    const printedAt = Date.now();
    try {
      const end = JSON.parse(line) as { event?: string; status?: { waiting?: { since?: string } | null } };
      const since = end.status?.waiting?.since;
      if (end.event === 'end' && since) shownAfterMs = printedAt - Date.parse(since);
    } catch {
      // Not a JSON line: nothing to time.
    }
  });
  return new Promise((resolve) => {
    child.once('close', (code) =>
      resolve({ command: `mesh runbook watch ${name}`, exitCode: code ?? 1, shownAfterMs }),
    );
  });
}
