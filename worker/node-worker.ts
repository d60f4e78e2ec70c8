import { ApplicationFailure } from '@temporalio/common';
import { Worker, type NativeConnection } from '@temporalio/worker';
import { createActivities, fixedHostRoot, type Activities, type ActivityDeps } from '../activities';
import { engineUnanswered } from '../activities/docker/failures';
import { hostFingerprintOnce } from '../activities/docker/fingerprint';
import {
  describeHost,
  EXPECTED_HOST,
  FAILURE,
  HostFingerprint,
  NODE_LOCAL_ACTIVITIES,
  nodeTaskQueue,
} from '../workflows/contracts';
import { keepAlive } from './keep-alive';
import { runbookLogContext } from './log-context';

/** The failure type of node-local work refused by a worker on another node. */
export const WRONG_NODE = 'WrongNode';

/** A node this process serves, and where that node's host paths are on this machine. */
export interface NodeSite {
  node: string;
  hostRoot: string;
}

/** Builds the activities from their deps: production's, unless a test wraps some. */
export type ActivitiesFor = (deps: ActivityDeps) => Activities;

type ActivityFunction = (input: unknown, ...rest: unknown[]) => Promise<unknown>;

/** Where a node worker is: the node it serves, its queue's runbook queue, and its host (read once per worker). */
export interface NodePost {
  node: string;
  runbookQueue: string;
  identity: string;
  here(): Promise<HostFingerprint>;
}

/**
 * The node-local activities of `activities`, each refusing, before it touches anything, an input that names
 * another node (a misrouted delete never runs on a host that happens to have the same path), or that carries
 * the host the runbook recorded for the node at preflight when this worker's host is another one.
 */
export function nodeActivities(post: NodePost, activities: Activities): Record<string, ActivityFunction> {
  const all = activities as unknown as Record<string, ActivityFunction | undefined>;
  const guarded: Record<string, ActivityFunction> = {};
  for (const name of NODE_LOCAL_ACTIVITIES) {
    const activity = all[name];
    if (!activity) continue;
    guarded[name] = async (input, ...rest) => {
      const { [EXPECTED_HOST]: expected, ...own } = (input ?? {}) as Record<string, unknown>;
      if (own.node !== post.node) throw wrongNode(post, name, own.node);
      if (expected !== undefined) await refuseAnotherHost(post, name, HostFingerprint.parse(expected));
      return activity(own, ...rest);
    };
  }
  return guarded;
}

function wrongNode(post: NodePost, activity: string, wanted: unknown): ApplicationFailure {
  const where =
    typeof wanted === 'string'
      ? `for node ${wanted}, whose own worker polls ${nodeTaskQueue(post.runbookQueue, wanted)}`
      : 'that names no node';
  return ApplicationFailure.nonRetryable(
    `The worker of node ${post.node} refuses ${activity} ${where}.`,
    WRONG_NODE,
  );
}

async function refuseAnotherHost(post: NodePost, activity: string, expected: HostFingerprint): Promise<void> {
  const here = await post.here().catch((error: unknown) => {
    throw engineUnanswered(post.node, error) ?? error;
  });
  if (here.engineId === expected.engineId && here.machineId === expected.machineId) return;
  throw ApplicationFailure.create({
    type: FAILURE.wrongHost,
    nonRetryable: true,
    message: `Two hosts serve node ${post.node}: the worker ${post.identity} works on ${describeHost(here)}, but ${post.node} was ${describeHost(expected)} when the runbook's preflight looked, so it refused ${activity}; stop the worker whose --node is wrong (or that is on the old host), then retry.`,
    details: [{ node: post.node, here, expected }],
  });
}

export interface NodeWorkerOptions {
  connection: NativeConnection;
  namespace: string;
  /** The runbook queue; the node's queue is `<runbookQueue>@<node>`. */
  runbookQueue: string;
  site: NodeSite;
  deps: ActivityDeps;
  activitiesFor?: ActivitiesFor;
  identity: string;
}

/**
 * An activities-only worker on the node's own task queue: the node's data and Docker work, with the node's
 * host root from this worker's own settings (never from mesh) and the node's Docker endpoint from config.
 * Its Temporal identity says which host it is on, so the runbook can tell two hosts polling one node apart.
 */
export async function createNodeWorker(options: NodeWorkerOptions): Promise<Worker> {
  const { site, runbookQueue } = options;
  // The host is read once for the worker, not by each activity's host check (see hostFingerprintOnce).
  const here = hostFingerprintOnce(options.deps.dockerFor(site.node), site.hostRoot);
  const deps = { ...options.deps, hostRootOf: fixedHostRoot(site.hostRoot), hostOf: here };
  const activities = (options.activitiesFor ?? createActivities)(deps);
  const host = await here().then(describeHost, () => 'an engine that did not answer at start');
  const identity = `${options.identity} [${site.node} on ${host}]`;
  return Worker.create({
    connection: options.connection,
    namespace: options.namespace,
    taskQueue: nodeTaskQueue(runbookQueue, site.node),
    identity,
    activities: nodeActivities({ node: site.node, runbookQueue, identity, here }, activities),
    // One node's work is a few activities at a time; a few pollers are plenty.
    activityTaskPollerBehavior: { type: 'simple-maximum', maximum: 2 },
    maxConcurrentActivityTaskExecutions: 10,
    maxHeartbeatThrottleInterval: '2 seconds',
    interceptors: {
      activity: [runbookLogContext, keepAlive({ stalledAfterMs: options.deps.policy?.stalledAfterMs })],
    },
  });
}
