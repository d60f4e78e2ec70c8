/* eslint-disable @typescript-eslint/no-require-imports -- the planner and the demo load on use (see ../lazy.ts) */
import type * as Planner from '../../../client/plan/edge-flip';
import { EDGE_FLIP_KIND } from '../../../workflows/edge-flip-kind';
import type * as Demo from '../demo/edge-flip';
import { registerPlanEdgeFlip } from '../plan/edge-flip';
import { registerStartEdgeFlip } from '../start/edge-flip';
import { defineOperatorKind } from './operator-kind';

export const EDGE_FLIP_OPERATOR = defineOperatorKind({
  descriptor: EDGE_FLIP_KIND,
  registerStart: registerStartEdgeFlip,
  registerPlan: registerPlanEdgeFlip,
  planner: () => (require('../../../client/plan/edge-flip') as typeof Planner).planEdgeFlip,
  demo: () => (require('../demo/edge-flip') as typeof Demo).edgeFlipDemo,
});
