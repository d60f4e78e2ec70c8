import { ApplicationFailure } from '@temporalio/common';
import { FAILURE } from '../../workflows/contracts';
import type { PathUser } from '../docker/containers-using-path';
import { invalidInput, refusalsAreFinal } from '../failures';
import { BaselineError } from './baseline-store';
import { MovePathError } from './paths';
import { PreflightError } from './preflight';
import { TargetIsTruthError } from './target-truth';

/** Failure types only the data activities throw. */
export const DATA_FAILURE = {
  /** A path to remove is still mounted by a container: nothing was removed. */
  pathInUse: 'PathInUse',
} as const;

/**
 * Refusals are final: retrying will not make a path absolute, a disk larger or an unknown node known. A
 * path or preflight refusal fails as PreflightFailed, a mesh refusal as MeshRefused, an unreadable or
 * missing baseline as InvalidInput, a copy over a B that already is the truth as TargetIsTruth.
 */
export async function moveRefusalsAreFinal<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await refusalsAreFinal(call);
  } catch (error) {
    if (error instanceof MovePathError || error instanceof PreflightError) {
      throw ApplicationFailure.create({
        type: FAILURE.preflightFailed,
        nonRetryable: true,
        message: error.message,
        details: [{ problem: error instanceof MovePathError ? error.problem : 'preflight' }],
      });
    }
    if (error instanceof BaselineError) throw invalidInput('catchUpCopy', error.message.replace(/\.$/, ''));
    if (error instanceof TargetIsTruthError)
      throw ApplicationFailure.nonRetryable(error.message, FAILURE.targetIsTruth);
    throw error;
  }
}

export function pathInUse(node: string, path: string, users: PathUser[]): ApplicationFailure {
  const names = [...new Set(users.map((u) => `${u.name} (${u.module ?? 'no mesh module'}, ${u.state})`))];
  return ApplicationFailure.create({
    type: DATA_FAILURE.pathInUse,
    nonRetryable: true,
    message: `${path} on node ${node} is still mounted by ${names.length} container(s): ${names.join(', ')}; nothing was removed. Remove those containers or their mounts first.`,
    details: [{ node, path, containers: users }],
  });
}
