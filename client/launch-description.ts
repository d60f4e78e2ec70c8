/** What the Web UI shows of a runbook from its start, as its kind describes it (workflows/kinds.ts). */
export { launchDescription } from '../workflows/kinds';
export type { LaunchDescription } from '../workflows/runbook/kind';
