import { ApplicationFailure } from '@temporalio/common';
import { FAILURE } from '../../workflows/contracts';
import { invalidInput } from '../failures';

/** Failure types the Docker activities throw; none but engineUnanswered is retried (an operator has to look). */
export const DOCKER_FAILURE = {
  /** More than one container carries the labels of one module container: which one runs is unclear. */
  ambiguousContainers: 'AmbiguousContainers',
  /** A start was asked for, but the module has no container on the node to start. */
  containersGone: FAILURE.containersGone,
  /** A create was asked for, but the image is not on the node's engine (and nothing pulls it). */
  imageMissing: 'ImageMissing',
  /** The node's engine does not answer (stopped, restarting, unreachable); retried, then the gate shows it. */
  engineUnanswered: 'DockerEngineUnanswered',
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

/** Some of the named containers of a module have no container on the node to start. */
export function namedContainersGone(node: string, module: string, missing: string[]): ApplicationFailure {
  return ApplicationFailure.create({
    type: DOCKER_FAILURE.containersGone,
    nonRetryable: true,
    message: `Module ${module} has no container for ${missing.join(', ')} on node ${node} to start: removed containers cannot be restarted (push the module again, or recreate them).`,
    details: [{ node, module, missing }],
  });
}

export function imageMissing(
  node: string,
  module: string,
  container: string,
  image: string,
): ApplicationFailure {
  return ApplicationFailure.create({
    type: DOCKER_FAILURE.imageMissing,
    nonRetryable: true,
    message: `Cannot recreate ${module}/${container} on node ${node}: image ${image} is not on the node's Docker engine; build or load it there, then retry.`,
    details: [{ node, module, container, image }],
  });
}

/** Names that are not containers of the module's spec: a typo must not read as "nothing to do". */
export function unknownContainers(
  activity: string,
  module: string,
  unknown: string[],
  known: string[],
): ApplicationFailure {
  return invalidInput(
    activity,
    `module ${module} has no container named ${unknown.join(', ')} in its spec (it has ${known.join(', ')})`,
  );
}

export function unreadableInspection(node: string, module: string, problem: string): ApplicationFailure {
  return ApplicationFailure.create({
    type: DOCKER_FAILURE.unreadableInspection,
    nonRetryable: true,
    message: `What Docker on node ${node} reports about module ${module} does not read as evidence: ${problem}.`,
  });
}

/** A socket error of the engine's connection itself (not of a file an activity reads). */
function engineConnectionError(error: unknown): (NodeJS.ErrnoException & { address?: string }) | undefined {
  const e = error as NodeJS.ErrnoException & { address?: string };
  if (!(error instanceof Error) || typeof e.code !== 'string') return undefined;
  return e.syscall === 'connect' || e.code === 'ECONNRESET' || e.code === 'EPIPE' ? e : undefined;
}

/**
 * The failure for an engine that stopped answering, or undefined for any other error. Retryable: a daemon
 * restart takes seconds. After one, containers without a restart policy (mesh sets none) stay stopped.
 */
export function engineUnanswered(node: string, error: unknown): ApplicationFailure | undefined {
  const e = engineConnectionError(error);
  if (!e) return undefined;
  const what = [e.syscall, e.code, e.address].filter(Boolean).join(' ');
  return ApplicationFailure.create({
    type: DOCKER_FAILURE.engineUnanswered,
    message:
      `The Docker engine of node ${node} does not answer (${what}): it is stopped or restarting; once it ` +
      'answers, check that its containers run again (a daemon restart stops those without a restart ' +
      'policy), then recheck or retry.',
    details: [{ node, code: e.code }],
  });
}
