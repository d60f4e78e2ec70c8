import { z } from 'zod';
import { firstIssue } from '../../base/zod-issue';
import { TASK_QUEUE } from '../../workflows/contracts';
import { UsageError } from '../errors';

const kebab = (field: string) => field.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);

/**
 * Parses a verb's arguments and options (the first line of every action); a mismatch is the operator's
 * mistake: one sentence naming the argument or option as typed, a suggestion, exit 2.
 */
export function parseOptions<S extends z.ZodType>(
  schema: S,
  input: Record<string, unknown>,
  positional: readonly string[] = [],
): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const { path, problem } = firstIssue(result.error);
  const field = String(path[0] ?? 'input');
  const label = positional.includes(field) ? `<${field}>` : `--${kebab(field)}`;
  const given = input[field];
  const shown = typeof given === 'string' ? ` "${given}"` : '';
  throw new UsageError(
    `${label}${shown} is invalid: ${problem}.`,
    'Add --help to the command to see what it accepts.',
  );
}

/** The task queue runbooks are started on and workers poll: MESH_TASK_QUEUE, TASK_QUEUE, else the default. */
export function taskQueueFromEnv(env: NodeJS.ProcessEnv = process.env): string {
  return env.MESH_TASK_QUEUE || env.TASK_QUEUE || TASK_QUEUE;
}

/** An evidence hash as `status` prints it: hex digits (the runbook's hash is 10 of them). */
export const EvidenceHash = z
  .string()
  .regex(
    /^[0-9a-f]{6,16}$/,
    'an evidence hash is hex digits as `mesh runbook status` prints them, e.g. 3f9a1c2b7d',
  );

/** A TCP port as an option gives it. */
export const Port = z.coerce.number().int().min(1).max(65535);
