import { CommanderError } from 'commander';
import type * as Zod from 'zod';
import { MeshCommandError, MeshRefusedError, MeshUnreadableError } from '../mesh/errors';
import { firstIssue } from '../base/zod-issue';
import { terminalSafe } from './terminal-text';

/** Exit codes the CLI documents; `process.exit` is called only in main.ts. */
export const EXIT = { ok: 0, failure: 1, usage: 2, waiting: 3, rolledBack: 4, failedOrAborted: 5 } as const;

/** `watch` and `start` stopped following on Ctrl-C; the runbook goes on (128 + SIGINT, as shells do). */
export const DETACHED = 130;

/** An operator's mistake on the command line: one sentence and a suggestion; nothing was started. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
  constructor(
    message: string,
    readonly suggestion: string,
  ) {
    super(message);
  }
}

export interface Presented {
  message: string;
  suggestion?: string;
  exitCode: number;
}

/**
 * Control characters an argument brought into a message, shown as `\u001b` instead of sent to the operator's
 * terminal (an escape sequence in a node name must not recolour or clear it). Line breaks and tabs stay.
 */
export { terminalSafe } from './terminal-text';

/**
 * zod's error, asked of zod only when the name says it may be one: an error from zod means zod is loaded,
 * and `mesh --help` never loads it.
 */
function isZodError(error: unknown): error is Zod.ZodError {
  if (!(error instanceof Error) || error.name !== 'ZodError') return false;
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- see above
  return error instanceof (require('zod') as typeof Zod).ZodError;
}

export function presentError(error: unknown): Presented {
  const presented = presentUnsafe(error);
  return {
    ...presented,
    message: terminalSafe(presented.message),
    ...(presented.suggestion === undefined ? {} : { suggestion: terminalSafe(presented.suggestion) }),
  };
}

function presentUnsafe(error: unknown): Presented {
  if (error instanceof UsageError)
    return { message: error.message, suggestion: error.suggestion, exitCode: EXIT.usage };
  if (isZodError(error)) {
    const { field, problem } = firstIssue(error);
    return {
      message: `${field ? `--${field}` : 'input'}: ${problem}.`,
      suggestion: 'Run the command with --help to see what it accepts.',
      exitCode: EXIT.usage,
    };
  }
  if (error instanceof CommanderError) {
    // Commander appends its guess on a line of its own: `unknown option '--jsn'\n(Did you mean --json?)`.
    const [message = '', guess] = error.message.replace(/^error: /, '').split('\n');
    return {
      message,
      suggestion: guess?.replace(/^\((.*)\)$/, '$1') ?? 'Run `mesh --help` or add --help to the command.',
      exitCode: EXIT.usage,
    };
  }
  if (error instanceof MeshRefusedError) {
    return {
      message: error.message,
      suggestion: 'See what exists with `mesh local node list` and `mesh local module list`.',
      exitCode: EXIT.usage,
    };
  }
  if (error instanceof MeshUnreadableError) {
    return { message: `mesh state is unreadable: ${error.message}`, exitCode: EXIT.failure };
  }
  if (error instanceof MeshCommandError) return { message: error.message, exitCode: EXIT.failure };
  return { message: error instanceof Error ? error.message : String(error), exitCode: EXIT.failure };
}
