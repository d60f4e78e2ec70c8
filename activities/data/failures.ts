import { ApplicationFailure } from '@temporalio/common';
import { FAILURE } from '../../workflows/contracts';
import { refusalsAreFinal } from '../failures';
import { MovePathError } from './paths';
import { PreflightError } from './preflight';

/**
 * Refusals are final: retrying will not make a path absolute, a disk larger or an unknown node known. A
 * path or preflight refusal fails as PreflightFailed, a mesh refusal as MeshRefused.
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
    throw error;
  }
}
