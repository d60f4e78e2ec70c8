/** The workflow type of a node's clearance (workflows/clear-node.ts `clearNode`); light enough for `--help`. */
export const CLEARANCE_TYPE = 'clearNode';

/** What `mesh runbook list` and the Web UI call a clearance (MeshKind). */
export const CLEARANCE_KIND = 'clearance';
