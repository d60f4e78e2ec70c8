import type { Command } from 'commander';
import { registerClear } from './clear/clear';
import { registerAbort } from './decide/abort';
import { registerApprove } from './decide/approve';
import { registerDecide } from './decide/decide';
import { registerDemo } from './demo/demo';
import { registerDev } from './worker/dev';
import { registerHistory } from './history/history';
import { registerList } from './list/list';
import { registerPlan } from './plan/plan';
import { registerStart } from './start/start';
import { registerStatus } from './follow/status';
import { registerWatch } from './follow/watch';
import { registerWorker } from './worker/worker';

/** `mesh runbook ...`: start, follow, decide on and abort durable runbooks; run their worker. */
export function registerRunbookCommands(program: Command): void {
  const runbook = program
    .command('runbook')
    .description('durable, evidence-checking cutovers on Temporal: start, follow, decide, abort')
    .addHelpText(
      'after',
      '\nExit codes: 0 ok (running or completed), 1 failure, 2 bad input, 3 waiting for a decision, ' +
        '4 rolled back, 5 failed or aborted, 130 detached (Ctrl-C; the runbook keeps running).\n' +
        'Temporal from TEMPORAL_ADDRESS / TEMPORAL_NAMESPACE; task queue from MESH_TASK_QUEUE (or TASK_QUEUE).',
    );
  registerPlan(runbook);
  registerStart(runbook);
  registerWatch(runbook);
  registerStatus(runbook);
  registerHistory(runbook);
  registerList(runbook);
  registerApprove(runbook);
  registerDecide(runbook);
  registerAbort(runbook);
  registerClear(runbook);
  registerWorker(runbook);
  registerDev(runbook);
  registerDemo(runbook);
}
