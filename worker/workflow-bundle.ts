import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { buildOutputs } from '../mesh/build-outputs';
import { PACKAGE_ROOT } from '../mesh/package-root';
import { WORKFLOW_INTERCEPTOR_MODULES, WORKFLOWS_PATH } from './workflow-code';

const outputs = buildOutputs();

/** Where `npm run build` writes the workflow bundle the runbook worker starts from. */
export const PREBUILT_WORKFLOW_BUNDLE = join(PACKAGE_ROOT, outputs.WORKFLOW_BUNDLE);

/** The pre-built bundle when it is newer than every source; otherwise none (the worker bundles at start). */
export function prebuiltWorkflowBundle(): { codePath: string } | undefined {
  return outputs.workflowBundleIsFresh(PACKAGE_ROOT) ? { codePath: PREBUILT_WORKFLOW_BUNDLE } : undefined;
}

const quiet = {
  log: () => undefined,
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: (message: string) => process.stderr.write(`bundle: ${message}\n`),
  error: (message: string) => process.stderr.write(`bundle: ${message}\n`),
};

/** Bundles the workflows and their interceptors once, for every later worker start. */
export async function writeWorkflowBundle(path = PREBUILT_WORKFLOW_BUNDLE): Promise<void> {
  const { code } = await bundleWorkflowCode({
    workflowsPath: WORKFLOWS_PATH,
    workflowInterceptorModules: WORKFLOW_INTERCEPTOR_MODULES,
    logger: quiet,
  });
  writeFileSync(path, code);
}
