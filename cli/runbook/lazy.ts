/* eslint-disable @typescript-eslint/no-require-imports -- loaded on use; see below */
import type * as Clear from './clear/run-clear';
import type * as Client from './client';
import type * as Decision from './decide/decision';
import type * as Demo from './demo/run';
import type * as Fleet from './start/fleet-launch';
import type * as MoveFleet from './start/move-fleet-launch';
import type * as FleetPlan from './plan/fleet-plan';
import type * as Follow from './follow/follow';
import type * as HistoryRead from './history/read';
import type * as HistoryRender from './history/render';
import type * as HistoryVerify from './history/print-verified';
import type * as Launch from './start/launch';
import type * as NodeMarks from '../../activities/runbook/node-marks';
import type * as NodeMarkReads from '../../client/node-marks-reads';
import type * as Observe from './observe';
import type * as Pauses from './decide/send-pause';
import type * as Signing from './decide/signed-input';
import type * as PlanHelp from './plan-help';
import type * as Plan from './plan/run-plan';
import type * as Deps from '../../worker/deps';
import type * as DevServer from '../../worker/dev-server';
import type * as Run from '../../worker/run';
import type * as Workflows from '../../workflows';

/**
 * The Temporal SDK, the worker and its dependencies take about a second to load; a command loads them when
 * it runs, so `mesh --help` and `mesh local ...` do not pay for them. `require`, not `import()`: bin/mesh.js
 * registers tsx for CommonJS only, where a dynamic import of a .ts file does not resolve.
 */
export const load = {
  clear: () => require('./clear/run-clear') as typeof Clear,
  client: () => require('./client') as typeof Client,
  decision: () => require('./decide/decision') as typeof Decision,
  demo: () => require('./demo/run') as typeof Demo,
  fleet: () => require('./start/fleet-launch') as typeof Fleet,
  moveFleet: () => require('./start/move-fleet-launch') as typeof MoveFleet,
  follow: () => require('./follow/follow') as typeof Follow,
  historyRead: () => require('./history/read') as typeof HistoryRead,
  historyRender: () => require('./history/render') as typeof HistoryRender,
  historyVerify: () => require('./history/print-verified') as typeof HistoryVerify,
  launch: () => require('./start/launch') as typeof Launch,
  /** A node's durable mark, read without the client SDK. */
  nodeMarks: () => require('../../activities/runbook/node-marks') as typeof NodeMarks,
  /** Where `nodeMarks` reads a mark from: the CLI's light Temporal reads. */
  nodeMarkReads: () => require('../../client/node-marks-reads') as typeof NodeMarkReads,
  observe: () => require('./observe') as typeof Observe,
  pauses: () => require('./decide/send-pause') as typeof Pauses,
  signing: () => require('./decide/signed-input') as typeof Signing,
  plans: () => require('./plan-help') as typeof PlanHelp,
  /** The plan of a runbook: the mesh adapter, Docker and the activities that read a node. */
  plan: () => require('./plan/run-plan') as typeof Plan,
  /** A fleet's plan: its nodes resolved through mesh, each node's plan. */
  fleetPlan: () => require('./plan/fleet-plan') as typeof FleetPlan,
  workerDeps: () => require('../../worker/deps') as typeof Deps,
  devServer: () => require('../../worker/dev-server') as typeof DevServer,
  workerRun: () => require('../../worker/run') as typeof Run,
  /** The runbooks' workflow functions, which a start names (never a workflow type's string). */
  workflows: () => require('../../workflows') as typeof Workflows,
};
