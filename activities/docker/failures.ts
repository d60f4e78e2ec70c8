import { ApplicationFailure } from '@temporalio/common';
import type { z } from 'zod';
import { FAILURE } from '../../workflows/contracts';

/** Failure types the Docker activities throw; none of them is retried (an operator has to look). */
export const DOCKER_FAILURE = {
  /** More than one container carries the labels of one module container: which one runs is unclear. */
  ambiguousContainers: 'AmbiguousContainers',
  /** A start was asked for, but the module has no container on the node to start. */
  containersGone: 'ContainersGone',
  /** Docker said something about a container that does not fit the evidence schema. */
  unreadableInspection: 'UnreadableInspection',
  invalidInput: FAILURE.invalidInput,
} as const;

export function ambiguousContainers(
  node: string,
  module: string,
  container: string,
  names: string[],
): ApplicationFailure {
  return ApplicationFailure.create({
    type: DOCKER_FAILURE.ambiguousContainers,
    nonRetryable: true,
    message:
      `${names.length} containers on node ${node} are labelled as ${module}/${container} (${names.join(', ')}); ` +
      'remove the stray ones so exactly one remains, then retry.',
    details: [{ node, module, container, names }],
  });
}

export function containersGone(node: string, module: string): ApplicationFailure {
  return ApplicationFailure.create({
    type: DOCKER_FAILURE.containersGone,
    nonRetryable: true,
    message: `Module ${module} has no container on node ${node} to start: they were removed, so they cannot be restarted (push the module again to recreate them).`,
    details: [{ node, module }],
  });
}

export function unreadableInspection(node: string, module: string, problem: string): ApplicationFailure {
  return ApplicationFailure.create({
    type: DOCKER_FAILURE.unreadableInspection,
    nonRetryable: true,
    message: `What Docker on node ${node} reports about module ${module} does not read as evidence: ${problem}.`,
  });
}

export function invalidInput(activity: string, problem: string): ApplicationFailure {
  return ApplicationFailure.create({
    type: DOCKER_FAILURE.invalidInput,
    nonRetryable: true,
    message: `${activity}: ${problem}.`,
  });
}

/** A zod error as one clause: where and what, e.g. `stabilityWindowMs: Too small: expected number to be >=0`. */
export function firstIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  const where = issue?.path.map(String).join('.') || 'input';
  return `${where}: ${issue?.message ?? 'does not match'}`;
}
