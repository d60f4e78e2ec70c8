/** The workflows the worker registers: one file per runbook. */
export { edgeFlip } from './edge-flip';
export { dataPathMove } from './data-path-move';
