import { PREBUILT_WORKFLOW_BUNDLE, writeWorkflowBundle } from './workflow-bundle';

// `npm run build`'s last step: dist/workflow-bundle.js, so `mesh runbook worker` and the demo start without bundling.
writeWorkflowBundle().then(
  () => process.stdout.write(`wrote ${PREBUILT_WORKFLOW_BUNDLE}\n`),
  (error: unknown) => {
    process.stderr.write(`cannot bundle the workflows: ${String(error)}\n`);
    process.exitCode = 1;
  },
);
