/**
 * What a dev server is given beyond `temporal server start-dev`'s defaults, so that it adds no waits of its
 * own between a runbook's steps. Measured with a workflow of ten no-op activities on this machine: 55–64 ms
 * per activity on the defaults, 26 ms with both.
 */

/**
 * The history service reads its transfer and timer queues at most 20 times a second per shard, and a dev
 * server has one shard: every workflow task and timer waited up to 50 ms before it was dispatched.
 */
export const QUEUE_READ_ARGS: readonly string[] = [
  '--dynamic-config-value',
  'history.transferProcessorMaxPollRPS=1000',
  '--dynamic-config-value',
  'history.timerProcessorMaxPollRPS=1000',
];

/**
 * A SQLite file in its default rollback journal syncs the disk at every commit. In WAL mode with
 * synchronous=NORMAL a commit survives the server being killed; only an OS crash or a power loss can undo
 * the last commits, and the file stays consistent.
 */
export const SQLITE_FILE_ARGS: readonly string[] = [
  '--sqlite-pragma',
  'journal_mode=wal',
  '--sqlite-pragma',
  'synchronous=normal',
];
