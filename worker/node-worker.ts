import { ApplicationFailure } from '@temporalio/common';
import { Worker, type NativeConnection } from '@temporalio/worker';
import { createActivities, fixedHostRoot, type Activities, type ActivityDeps } from '../activities';
import { NODE_LOCAL_ACTIVITIES, nodeTaskQueue } from '../workflows/contracts';
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

/**
 * The node-local activities of `activities`, each refusing, before it touches anything, an input that
 * names another node: a misrouted delete never runs on a host that happens to have the same path.
 */
export function nodeActivities(
  node: string,
  runbookQueue: string,
  activities: Activities,
): Record<string, ActivityFunction> {
  const all = activities as unknown as Record<string, ActivityFunction | undefined>;
  const guarded: Record<string, ActivityFunction> = {};
  for (const name of NODE_LOCAL_ACTIVITIES) {
    const activity = all[name];
    if (!activity) continue;
    guarded[name] = (input, ...rest) => {
      const wanted = (input as { node?: unknown } | undefined)?.node;
      if (wanted !== node) throw wrongNode(node, name, wanted, runbookQueue);
      return activity(input, ...rest);
    };
  }
  return guarded;
}

function wrongNode(
  node: string,
  activity: string,
  wanted: unknown,
  runbookQueue: string,
): ApplicationFailure {
  const where =
    typeof wanted === 'string'
      ? `for node ${wanted}, whose own worker polls ${nodeTaskQueue(runbookQueue, wanted)}`
      : 'that names no node';
  return ApplicationFailure.nonRetryable(
    `The worker of node ${node} refuses ${activity} ${where}.`,
    WRONG_NODE,
  );
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
 */
export function createNodeWorker(options: NodeWorkerOptions): Promise<Worker> {
  const { site, runbookQueue } = options;
  const deps = { ...options.deps, hostRootOf: fixedHostRoot(site.hostRoot) };
  const activities = (options.activitiesFor ?? createActivities)(deps);
  return Worker.create({
    connection: options.connection,
    namespace: options.namespace,
    taskQueue: nodeTaskQueue(runbookQueue, site.node),
    identity: options.identity,
    activities: nodeActivities(site.node, runbookQueue, activities),
    // One node's work is a few activities at a time; a few pollers are plenty.
    activityTaskPollerBehavior: { type: 'simple-maximum', maximum: 2 },
    maxConcurrentActivityTaskExecutions: 10,
    maxHeartbeatThrottleInterval: '2 seconds',
    interceptors: {
      activity: [runbookLogContext, keepAlive({ stalledAfterMs: options.deps.policy?.stalledAfterMs })],
    },
  });
}
