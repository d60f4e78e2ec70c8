/**
 * The patch marker every revision-2 run wrote (its call left the workflows in revision 4): an open run without
 * MeshRevision that has it ran revision 2. Bundle-safe, for the stand-ins of test/fixtures/revision-workflows.
 */
export const REVISION_2_MARKER = 'runbook-revision-2';
