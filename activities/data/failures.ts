import { ApplicationFailure } from '@temporalio/common';
import { MeshRefusedError } from '../../mesh/errors';
import { FAILURE } from '../../workflows/contracts';
import { MovePathError } from './paths';
import { PreflightError } from './preflight';

/** Refusals are final: retrying will not make a path absolute, a disk larger or an unknown node known. */
export async function refusalsAreFinal<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof MovePathError || error instanceof PreflightError) {
      throw ApplicationFailure.create({
        type: FAILURE.preflightFailed,
        nonRetryable: true,
        message: error.message,
        details: [{ problem: error instanceof MovePathError ? error.problem : 'preflight' }],
      });
    }
    if (error instanceof MeshRefusedError)
      throw ApplicationFailure.nonRetryable(error.message, 'MeshRefused');
    throw error;
  }
}
