import type { Command } from 'commander';
import type { z } from 'zod';
import type * as Local from '../../mesh/local';
import { Name } from '../../mesh/schemas';
import { firstIssue } from '../../base/zod-issue';
import { UsageError } from '../errors';

/** The local mesh whose state dir `--state-dir` on `mesh local` (or $MESH_LOCAL_STATE) names. */
export function localMeshFor(command: Command): Local.LocalMesh {
  const { stateDir } = command.optsWithGlobals<{ stateDir?: string }>();
  // Loaded on use: the local mesh brings dockerode, which `--help` and the runbook verbs do not need.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { LocalMesh, resolveLocalStateDir } = require('../../mesh/local') as typeof Local;
  return new LocalMesh({ stateDir: resolveLocalStateDir(stateDir) });
}

/** Parses a verb's arguments and options; a mismatch is the operator's mistake: one sentence, exit 2. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const { path, field, problem } = firstIssue(result.error);
  const given = path.reduce<unknown>((value, key) => (value as Record<PropertyKey, unknown>)?.[key], input);
  const isName = field === 'node' || field === 'module';
  throw new UsageError(
    `${isName ? field : `--${field}`} ${given === undefined ? '' : `"${String(given)}" `}is invalid: ${problem}.`,
    isName
      ? 'Names use lower-case letters, digits and dashes, e.g. novox or route-proxy.'
      : 'Add --help to the command to see what it accepts.',
  );
}

export const NodeName = Name;
export const ModuleName = Name;

export function plural(count: number, noun: string): string {
  return `${count} ${noun}(s)`;
}
