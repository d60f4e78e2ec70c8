/** The workflows the worker registers: one file per runbook. */
export { edgeFlip } from './edge-flip';
