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
import { declareRunbook } from './group';

/** `mesh runbook` and every verb under it. */
export function registerRunbookCommands(program: Command): void {
  addRunbookVerbs(declareRunbook(program));
}

/** The verbs of `mesh runbook` (declared by ./group), on the group's command. */
export function addRunbookVerbs(runbook: Command): void {
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
