/**
 * Runbooks started before `REVISION_2` was released run as they were recorded (workflows/legacy/, revision 1):
 * their histories replay against that code. Revision 2 is what the "cannot do harm" review asked for: locks,
 * per-node work, undo steps that wait instead of failing silently, evidence with memory.
 */
export const REVISION_2 = 'runbook-revision-2';

export type Revision = 1 | 2;
