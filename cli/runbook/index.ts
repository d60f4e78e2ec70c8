import type { Command } from 'commander';
import { registerAbort } from './abort';
import { registerApprove } from './approve';
import { registerDecide } from './decide';
import { registerDemo } from './demo';
import { registerDev } from './dev';
import { registerHistory } from './history';
import { registerList } from './list';
import { registerStart } from './start';
import { registerStatus } from './status';
import { registerWatch } from './watch';
import { registerWorker } from './worker';

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
  registerStart(runbook);
  registerWatch(runbook);
  registerStatus(runbook);
  registerHistory(runbook);
  registerList(runbook);
  registerApprove(runbook);
  registerDecide(runbook);
  registerAbort(runbook);
  registerWorker(runbook);
  registerDev(runbook);
  registerDemo(runbook);
}
