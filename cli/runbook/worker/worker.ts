import type { Command } from 'commander';
import { z } from 'zod';
import type * as Config from '../../../config';
import { AbsolutePath, Name } from '../../../mesh/schemas';
import type * as Connection from '../../../worker/connection';
import { printJson, printLine } from '../../output';
import { load } from '../lazy';
import { parseOptions, taskQueueFromEnv } from '../options';
import type * as NodeQueues from './node-queues';
import type * as RetiredRuns from './retired-runs';

const Input = z.object({
  json: z.boolean().default(false),
  node: z.array(Name).default([]),
  hostRoot: AbsolutePath.optional(),
  nodesOnly: z.boolean().default(false),
});

const collect = (value: string, previous: string[] = []) => [...previous, value];

export function registerWorker(runbook: Command): void {
  runbook
    .command('worker')
    .description(
      'run the runbook worker (TEMPORAL_ADDRESS, MESH_TASK_QUEUE, MESH_ADAPTER, ...) until SIGINT/SIGTERM, then drain and stop',
    )
    .option(
      '--node <name>',
      "also do this node's data and Docker work (its queue <task queue>@<name>); repeat for each node on this machine",
      collect,
    )
    .option('--host-root <dir>', "where the --node's host paths are on this machine (default /)")
    .option(
      '--nodes-only',
      'poll only the node queues: no workflows and no mesh, probe or reminder activities',
    )
    .option('--json', 'print the worker as JSON once it polls')
    .action(async (options: object) => {
      const input = parseOptions(Input, { ...options });
      /* eslint-disable @typescript-eslint/no-require-imports -- loaded on use: not needed for --help */
      const { connectionOptionsFor, temporalTarget } =
        require('../../../worker/connection') as typeof Connection;
      const { refuseRetiredRuns } = require('./retired-runs') as typeof RetiredRuns;
      const { loadConfig } = require('../../../config') as typeof Config;
      const { describeNodeQueues, nodeQueuesFor } = require('./node-queues') as typeof NodeQueues;
      /* eslint-enable @typescript-eslint/no-require-imports */
      const target = temporalTarget();
      const taskQueue = taskQueueFromEnv();
      const config = loadConfig();
      const nodeQueues = await nodeQueuesFor(config.mesh, {
        nodes: input.node,
        hostRoot: input.hostRoot,
        nodesOnly: input.nodesOnly,
      });
      const { depsFromConfig } = load.workerDeps();
      const { runWorker, stopOnSignals } = load.workerRun();
      const deps = depsFromConfig(config);
      const nodes = describeNodeQueues(nodeQueues, taskQueue);
      const stop = stopOnSignals();
      try {
        process.stderr.write(
          `starting the worker for task queue ${taskQueue} (bundling the workflows takes a few seconds)…\n`,
        );
        await runWorker({
          ...target,
          taskQueue,
          deps,
          ...(nodeQueues ? { nodeQueues } : {}),
          nodeQueuesOnly: input.nodesOnly,
          signal: stop.signal,
          // A worker of node queues only runs no workflow code: it replays nothing.
          ...(input.nodesOnly
            ? {}
            : {
                beforePolling: () =>
                  refuseRetiredRuns(connectionOptionsFor(target.address), target.namespace, taskQueue),
              }),
          onReady: (identity) => {
            const ready = {
              address: target.address,
              namespace: target.namespace,
              taskQueue,
              identity,
              nodes,
            };
            if (input.json) printJson(ready);
            else
              printLine(
                `worker ${identity} polls ${input.nodesOnly ? '' : `task queue ${taskQueue} and `}${nodes} on ${target.address} (namespace ${target.namespace}); Ctrl-C stops it`,
              );
          },
        });
        process.stderr.write('worker stopped\n');
      } finally {
        stop.dispose();
      }
    });
}
