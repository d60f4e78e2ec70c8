import type { Command } from 'commander';
import { z } from 'zod';
import { temporalTarget } from '../../../worker/connection';
import { printJson, printLine } from '../../output';
import { load } from '../lazy';
import { parseOptions, taskQueueFromEnv } from '../options';

const Input = z.object({ json: z.boolean().default(false) });

export function registerWorker(runbook: Command): void {
  runbook
    .command('worker')
    .description(
      'run the runbook worker (TEMPORAL_ADDRESS, MESH_TASK_QUEUE, MESH_ADAPTER, ...) until SIGINT/SIGTERM, then drain and stop',
    )
    .option('--json', 'print the worker as JSON once it polls')
    .action(async (options: object) => {
      const input = parseOptions(Input, { ...options });
      const target = temporalTarget();
      const taskQueue = taskQueueFromEnv();
      const { depsFromEnv } = load.workerDeps();
      const { runWorker, stopOnSignals } = load.workerRun();
      const deps = depsFromEnv();
      const stop = stopOnSignals();
      try {
        process.stderr.write(
          `starting the worker for task queue ${taskQueue} (bundling the workflows takes a few seconds)…\n`,
        );
        await runWorker({
          ...target,
          taskQueue,
          deps,
          signal: stop.signal,
          onReady: (identity) => {
            const ready = { address: target.address, namespace: target.namespace, taskQueue, identity };
            if (input.json) printJson(ready);
            else
              printLine(
                `worker ${identity} polls task queue ${taskQueue} on ${target.address} (namespace ${target.namespace}); Ctrl-C stops it`,
              );
          },
        });
        process.stderr.write('worker stopped\n');
      } finally {
        stop.dispose();
      }
    });
}
