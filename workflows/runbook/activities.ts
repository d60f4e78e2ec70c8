import {
  ActivityCancellationType,
  ActivityFailure,
  ApplicationFailure,
  proxyActivities,
  TimeoutFailure,
  type ActivityInterfaceFor,
  type ActivityOptions,
} from '@temporalio/workflow';
import type { Activities } from '../../activities';
import { EXPECTED_HOST, FAILURE, isNodeLocalActivity, nodeTaskQueue } from '../contracts';
import { recordedHost } from './hosts';
import { runbookQueue } from './queue';

/**
 * How long node work waits for its node's worker to take it. Past that the step fails with a sentence
 * naming the worker to start, and waits for retry or abort, instead of hanging where nobody looks.
 */
const NODE_WORKER_WAIT = '1 minute';

/** Off until a runbook opens (open.ts): workflows that are not runbooks keep their work on their own queue. */
let nodeWorkOnNodes = false;

/** Node-local activities run on their node's own task queue from now on (see open.ts). */
export function routeNodeWorkToNodes(): void {
  nodeWorkOnNodes = true;
}

/**
 * Activity proxies with `options` that send each node-local activity (NODE_LOCAL_ACTIVITIES) to the task
 * queue of the node its input names, and every other one to the runbook's own queue.
 */
function routed<A extends object>(options: ActivityOptions): ActivityInterfaceFor<A> {
  const shared = proxyActivities<A>(options);
  const perNode = new Map<string, ActivityInterfaceFor<A>>();
  const onNode = (node: string): ActivityInterfaceFor<A> => {
    const taskQueue = nodeTaskQueue(runbookQueue(), node);
    let proxy = perNode.get(taskQueue);
    if (!proxy)
      perNode.set(
        taskQueue,
        (proxy = proxyActivities<A>({ ...options, taskQueue, scheduleToStartTimeout: NODE_WORKER_WAIT })),
      );
    return proxy;
  };
  const activity = (proxy: ActivityInterfaceFor<A>, name: string) =>
    (proxy as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>)[name]!;
  return new Proxy(shared, {
    get(target, name, receiver) {
      if (typeof name !== 'string' || !isNodeLocalActivity(name)) return Reflect.get(target, name, receiver);
      return (input: unknown, ...rest: unknown[]) => {
        if (!nodeWorkOnNodes) return activity(target, name)(input, ...rest);
        const node = nodeOf(name, input);
        const host = recordedHost(node);
        const sent = host ? { ...(input as object), [EXPECTED_HOST]: host } : input;
        return activity(onNode(node), name)(sent, ...rest).catch((error: unknown) => {
          throw untakenOnNode(error, name, node) ?? error;
        });
      };
    },
  });
}

function nodeOf(activity: string, input: unknown): string {
  const node = (input as { node?: unknown } | undefined)?.node;
  if (typeof node === 'string') return node;
  throw ApplicationFailure.nonRetryable(
    `${activity} works on a node's own worker but its input names no node.`,
    FAILURE.invalidInput,
  );
}

/** The failure that says which worker to start, when no worker of `node` took the activity in time. */
function untakenOnNode(error: unknown, activity: string, node: string): ApplicationFailure | undefined {
  const untaken =
    error instanceof ActivityFailure &&
    error.cause instanceof TimeoutFailure &&
    error.cause.timeoutType === 'SCHEDULE_TO_START';
  if (!untaken) return undefined;
  const queue = nodeTaskQueue(runbookQueue(), node);
  return ApplicationFailure.nonRetryable(
    `No worker on node ${node} took ${activity} within ${NODE_WORKER_WAIT}: start \`mesh runbook worker --node ${node}\` there (it polls ${queue})`,
    FAILURE.noNodeWorker,
  );
}

const ACT: ActivityOptions = {
  startToCloseTimeout: '2 minutes',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '10 seconds',
    maximumAttempts: 3,
  },
};
/**
 * Timeouts and retries for every runbook's activities, set here once. Every worker beats for its activities
 * (worker/keep-alive.ts), so 10 s of silence is a dead one.
 */
export const act = routed<Activities>({ ...ACT, heartbeatTimeout: '10 seconds' });

/**
 * Copying and checksumming data take as long as the data is large: no overall deadline, a short heartbeat
 * timeout instead, so a dead worker is noticed in seconds and the retry resumes from the last heartbeat.
 */
const LONG: ActivityOptions = {
  startToCloseTimeout: '24 hours',
  heartbeatTimeout: '10 seconds',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '30 seconds',
    maximumAttempts: 10,
  },
};
type LongWork = Pick<Activities, 'copyTree' | 'verifyTree' | 'catchUpCopy'>;

/** A cancelled copy, verify or catch-up is waited for until it has really ended: no undo runs beside it. */
export const longAct = routed<LongWork>({
  ...LONG,
  cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
});

/**
 * The worker's policy and the node's last run: quick reads. The last run's read heartbeats while it waits
 * for Temporal, so a slow answer is never timed out, and a worker that died holding one of them is noticed
 * within the heartbeat timeout: the live worker reads again instead of the runbook standing for the minute.
 */
export const settings = proxyActivities<Pick<Activities, 'runbookPolicy' | 'previousRun'>>({
  startToCloseTimeout: '1 minute',
  heartbeatTimeout: '10 seconds',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '10 seconds',
    maximumAttempts: 3,
  },
});

/**
 * What a runbook asks Temporal before it believes a message anyone could have sent (a lock grant): asked
 * until Temporal answers, since guessing either way is wrong.
 */
export const verify = proxyActivities<Pick<Activities, 'lockGrantOf'>>({
  startToCloseTimeout: '1 minute',
  heartbeatTimeout: '10 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '10 seconds' },
});

/** A reminder must not hold up a decision that arrives meanwhile for long: short deadline, two tries. */
export const notify = proxyActivities<Pick<Activities, 'remindOperators'>>({
  startToCloseTimeout: '15 seconds',
  retry: { initialInterval: '1 second', maximumAttempts: 2 },
});

/**
 * Undo steps run when something already went wrong: they try patiently (about six minutes of backoff), then
 * wait for the operator (retry or give-up) instead of failing the rollback in seconds.
 */
export const undoAct = routed<Activities>({
  startToCloseTimeout: '2 minutes',
  retry: {
    initialInterval: '2 seconds',
    backoffCoefficient: 2,
    maximumInterval: '1 minute',
    maximumAttempts: 10,
  },
});

/** How long one watch of a waiting gate's containers lasts before it answers unchanged and is started again. */
export const WATCH_FOR_MS = 60 * 60_000;

/**
 * A waiting gate's watch of its containers: answers on a change or after WATCH_FOR_MS. A worker that dies
 * is noticed within the heartbeat timeout and the watch retried, as long as the gate waits.
 */
export const watchAct = routed<Pick<Activities, 'watchModuleContainers' | 'watchPathUsers'>>({
  startToCloseTimeout: WATCH_FOR_MS + 5 * 60_000,
  heartbeatTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds' },
});
