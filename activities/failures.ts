import { ApplicationFailure } from '@temporalio/common';
import type { z } from 'zod';
import { MeshRefusedError } from '../mesh/errors';
import { firstIssueText } from '../base/zod-issue';
import { FAILURE } from '../workflows/contracts';

/** The failure type of a refusal by mesh: an unknown node or module, or a verb out of place. */
export const MESH_REFUSED = 'MeshRefused';

/** A refusal by mesh will not improve with retries: it fails the activity for good, for the gate to show. */
export async function refusalsAreFinal<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof MeshRefusedError) throw ApplicationFailure.nonRetryable(error.message, MESH_REFUSED);
    throw error;
  }
}

export function invalidInput(activity: string, problem: string): ApplicationFailure {
  return ApplicationFailure.create({
    type: FAILURE.invalidInput,
    nonRetryable: true,
    message: `${activity}: ${problem}.`,
  });
}

/** The input as its schema reads it, or a non-retryable InvalidInput failure naming the field. */
export function parseActivityInput<S extends z.ZodType>(
  activity: string,
  schema: S,
  input: unknown,
): z.output<S> {
  const parsed = schema.safeParse(input);
  if (!parsed.success) throw invalidInput(activity, firstIssueText(parsed.error));
  return parsed.data;
}
