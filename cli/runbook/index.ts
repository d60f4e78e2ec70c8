/* eslint-disable @typescript-eslint/no-require-imports -- a verb's module is loaded when it is registered */
import type { Command } from 'commander';
import type * as Clear from './clear/clear';
import type * as Abort from './decide/abort';
import type * as Approve from './decide/approve';
import type * as Decide from './decide/decide';
import type * as Pause from './decide/pause';
import type * as Sign from './decide/sign';
import type * as Demo from './demo/demo';
import type * as Dev from './worker/dev';
import type * as History from './history/history';
import type * as List from './list/list';
import type * as Plan from './plan/plan';
import type * as Start from './start/start';
import type * as Status from './follow/status';
import type * as Watch from './follow/watch';
import type * as Worker from './worker/worker';
import { declareRunbook } from './group';

type Register = (runbook: Command) => void;

/** Every verb by the name it registers, in the order `mesh runbook --help` lists them. */
const VERBS: readonly (readonly [string, () => Register])[] = [
  ['plan', () => (require('./plan/plan') as typeof Plan).registerPlan],
  ['start', () => (require('./start/start') as typeof Start).registerStart],
  ['watch', () => (require('./follow/watch') as typeof Watch).registerWatch],
  ['status', () => (require('./follow/status') as typeof Status).registerStatus],
  ['history', () => (require('./history/history') as typeof History).registerHistory],
  ['list', () => (require('./list/list') as typeof List).registerList],
  ['approve', () => (require('./decide/approve') as typeof Approve).registerApprove],
  ['decide', () => (require('./decide/decide') as typeof Decide).registerDecide],
  ['pause', () => (require('./decide/pause') as typeof Pause).registerPause],
  ['resume', () => (require('./decide/pause') as typeof Pause).registerResume],
  ['sign', () => (require('./decide/sign') as typeof Sign).registerSign],
  ['abort', () => (require('./decide/abort') as typeof Abort).registerAbort],
  ['clear', () => (require('./clear/clear') as typeof Clear).registerClear],
  ['worker', () => (require('./worker/worker') as typeof Worker).registerWorker],
  ['dev', () => (require('./worker/dev') as typeof Dev).registerDev],
  ['demo', () => (require('./demo/demo') as typeof Demo).registerDemo],
];

/** `mesh runbook` and every verb under it. */
export function registerRunbookCommands(program: Command): void {
  addRunbookVerbs(declareRunbook(program));
}

/**
 * The verbs of `mesh runbook` (declared by ./group), on the group's command: only `verb` when the command
 * line names one (`mesh runbook status` loads none of start's, plan's or the worker's modules), else all of
 * them, for the group's help and for a misspelt verb's suggestion.
 */
export function addRunbookVerbs(runbook: Command, verb?: string): void {
  const named = VERBS.find(([name]) => name === verb);
  for (const [, register] of named ? [named] : VERBS) register()(runbook);
}
