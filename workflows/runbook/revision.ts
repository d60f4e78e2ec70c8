/**
 * Runbooks started before `REVISION_2` was released run as they were recorded (workflows/legacy/, revision 1):
 * their histories replay against that code. Revision 2 is what the "cannot do harm" review asked for: locks,
 * per-node work, undo steps that wait instead of failing silently, evidence with memory.
 */
export const REVISION_2 = 'runbook-revision-2';

export type Revision = 1 | 2;

/**
 * A gate whose plan allows `recheck` offers it whatever the verdict says. The offered actions are part of the
 * evidence hash a decision carries, so runbooks recorded before keep their old offers and replay.
 */
export const OFFER_RECHECK = 'gate-offers-recheck';

/**
 * A gate's reminders double their interval after each one, up to `MAX_REMINDER_BACKOFF` times the configured
 * one: a wait of weeks adds a reminder's dozen history events a day, not every half hour until the history
 * limit ends the runbook. Runbooks recorded before remind at the fixed interval and replay.
 */
export const REMINDER_BACKOFF = 'reminder-backoff';
/** With the default half-hour interval: a reminder a day at most, once the wait is older than two days. */
export const MAX_REMINDER_BACKOFF = 48;

/**
 * `act` activities time out after 10 s without a heartbeat instead of 30 s: a worker killed inside one is
 * replaced in about 11 s. Workers beat for every activity while it runs (worker/keep-alive.ts), so a slow
 * Docker call on a live worker is not timed out. Runbooks recorded before schedule with 30 s and replay.
 */
export const QUICK_DEAD_WORKER = 'act-heartbeat-10s';

/**
 * Reads that do not depend on each other go out together: the worker's policy with the node's last run,
 * the edge flip's three preflight looks, and at gate-clean the successor's containers with the
 * predecessor's (once the node's report is in). Runbooks recorded before read them one after the other.
 */
export const PARALLEL_READS = 'parallel-reads';

/**
 * A runbook that fails carries its final status in the failure's details, as a completed one returns it:
 * `mesh runbook status` reads it from the close event instead of asking a worker to replay the whole run.
 * Runbooks recorded before fail with the bare failure (status then asks the query).
 */
export const STATUS_IN_FAILURE = 'status-in-failure';

/**
 * The restart memory is kept per node and container, not by Docker name alone: a real mesh names a
 * module's containers alike on every node, so a move over two nodes judged each node against the other's
 * first sighting (and lost both). Runbooks recorded before share one memory across their nodes and replay.
 */
export const MEMORY_PER_NODE = 'container-memory-per-node';
