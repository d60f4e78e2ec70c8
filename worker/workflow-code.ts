/** Where the runbook workflows and their interceptors are, for the worker, the bundler and replay. */
export const WORKFLOWS_PATH = require.resolve('../workflows');
export const WORKFLOW_INTERCEPTOR_MODULES = [require.resolve('../workflows/interceptors')];

/** Worker options that load the workflows from source (no pre-built bundle). */
export function workflowsFromSource(workflowsPath = WORKFLOWS_PATH) {
  return { workflowsPath, interceptors: { workflowModules: WORKFLOW_INTERCEPTOR_MODULES } };
}
