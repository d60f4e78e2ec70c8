import { basename } from 'node:path';
import type { Command } from 'commander';

/** The name an operator's own `mesh` hands `mesh runbook ...` to, as git and kubectl find their plugins. */
export const PLUGIN_NAME = 'mesh-runbook';

/**
 * The arguments as this CLI reads them. Invoked as `mesh-runbook` (the plugin naming: `mesh runbook status
 * novox` runs `mesh-runbook status novox`), a runbook verb needs no `runbook` before it; every other
 * invocation (`mesh-runbook runbook ...`, `mesh-runbook local ...`) reads as it does under `mesh`.
 */
export function argsAsInvoked(program: Command, invokedAs: string, args: readonly string[]): string[] {
  if (!invokedAsPlugin(invokedAs)) return [...args];
  const [first] = args;
  const runbook = program.commands.find((command) => command.name() === 'runbook');
  const isRunbookVerb = runbook?.commands.some((verb) => verb.name() === first) ?? false;
  return isRunbookVerb ? ['runbook', ...args] : [...args];
}

/** Whether this process runs as `mesh-runbook` (the path it was invoked by, argv[1]). */
export function invokedAsPlugin(invokedAs: string): boolean {
  return basename(invokedAs).replace(/\.js$/, '') === PLUGIN_NAME;
}
