/**
 * The workflows the worker registers: one file per runbook, the locks they share, a node's durable mark and
 * its clearance, a plan's node reads.
 */
export { edgeFlip } from './edge-flip';
export { dataPathMove } from './data-path-move';
export { edgeFlipFleet } from './fleet';
export { dataPathMoveFleet } from './data-path-move-fleet';
export { runbookLocks } from './lock';
export { clearNode } from './clear-node';
export { nodeMark } from './node-mark';
export { planNodeRead } from './plan-read';
