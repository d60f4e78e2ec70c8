/* eslint-disable @typescript-eslint/no-require-imports -- the planner and the demo load on use (see ../lazy.ts) */
import type * as Planner from '../../../client/plan/data-path-move';
import { DATA_PATH_MOVE_KIND } from '../../../workflows/data-path-move-kind';
import type * as Demo from '../demo/data-path-move';
import { registerPlanDataPathMove } from '../plan/data-path-move';
import { registerStartDataPathMove } from '../start/data-path-move';
import { defineOperatorKind } from './operator-kind';

export const DATA_PATH_MOVE_OPERATOR = defineOperatorKind({
  descriptor: DATA_PATH_MOVE_KIND,
  registerStart: registerStartDataPathMove,
  registerPlan: registerPlanDataPathMove,
  planner: () => (require('../../../client/plan/data-path-move') as typeof Planner).planDataPathMove,
  demo: () => (require('../demo/data-path-move') as typeof Demo).dataPathMoveDemo,
});
