import { join, resolve } from 'node:path';
import { Option, type Command } from 'commander';
import { z } from 'zod';
import { STATE_DIR_ENV } from '../../../mesh/local/state-dir';
import type * as Connection from '../../../worker/connection';
import type * as DevServerModule from '../../../worker/dev-server';
import type { DevServer } from '../../../worker/dev-server';
import { findTemporalCli } from '../../../worker/temporal-binary';
import { UsageError } from '../../errors';
import { printJson, printLine } from '../../output';
import { RunbookPolicy } from '../../../workflows/policy';
import { refuseRetiredRuns } from './retired-runs';
import { signingLine } from './signing-line';
import { load } from '../lazy';
import { parseOptions, Port, taskQueueFromEnv } from '../options';
import { devAgainCommand, devUsage, DEV_STATE_DIR } from './dev-usage';

// eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on use: the config it reads is not needed for --help
const connection = () => require('../../../worker/connection') as typeof Connection;

const Input = z.object({
  stateDir: z.string().min(1).default(DEV_STATE_DIR),
  port: Port.default(7233),
  uiPort: Port.default(8233),
  json: z.boolean().default(false),
  resumeWith: z.string().min(1).optional(),
});

const IP = '127.0.0.1';

export function registerDev(runbook: Command): void {
  runbook
    .command('dev')
    .description(
      'a local Temporal dev server with its Web UI and a runbook worker in one process; runbooks persist in <state-dir>/temporal.db',
    )
    .option(
      '--state-dir <dir>',
      'where the server keeps its database and log (default ~/.local/state/mesh/dev)',
    )
    .option('--port <port>', 'the Temporal gRPC port (default 7233)')
    .option('--ui-port <port>', 'the Web UI port (default 8233)')
    .option('--json', 'print the addresses as JSON once ready')
    // The demo runs `dev` on its own state; it names itself as what resumes the runbooks when dev stops.
    .addOption(new Option('--resume-with <command>').hideHelp())
    .action(async (options: object) => {
      const input = parseOptions(Input, { ...options });
      const stateDir = resolve(input.stateDir);
      const cli = findTemporalCli();
      if (!cli) {
        throw new UsageError(
          'No Temporal CLI found on PATH to run the dev server with.',
          'Install it (https://docs.temporal.io/cli) or point TEMPORAL_CLI_PATH at the binary.',
        );
      }
      const { depsFromEnv } = load.workerDeps();
      const devServer = load.devServer();
      const { runWorker, stopOnSignals } = load.workerRun();
      await refuseBusyPorts(devServer, stateDir, input.port, input.uiPort);
      const namespace = connection().temporalTarget().namespace;
      const taskQueue = taskQueueFromEnv();
      const localState = process.env[STATE_DIR_ENV] || join(stateDir, 'local');
      const deps = depsFromEnv({ ...process.env, [STATE_DIR_ENV]: localState });
      const resumeWith = input.resumeWith ?? devAgainCommand(stateDir, localState, taskQueue);

      const stop = stopOnSignals();
      let server: DevServer | undefined;
      try {
        process.stderr.write(`starting the Temporal dev server on ${IP}:${input.port}…\n`);
        server = await devServer.startDevServer(
          { cli, stateDir, ip: IP, port: input.port, uiPort: input.uiPort, namespace },
          stop.signal,
        );
        const ready = server;
        process.stderr.write(
          `starting the worker for task queue ${taskQueue} (bundling the workflows takes a few seconds)…\n`,
        );
        await runWorker({
          address: ready.address,
          namespace,
          taskQueue,
          deps,
          // Every node of the local mesh lives on this machine: this worker does each one's node work.
          nodeQueues: { localMesh: localState },
          signal: stop.signal,
          // A dev server's database outlives an upgrade: runs it holds may be of a retired revision.
          beforePolling: () =>
            refuseRetiredRuns(
              { address: ready.address },
              namespace,
              taskQueue,
              `Finish or abort them with mesh runbook dev of the release that started them, or start afresh beside them: mesh runbook dev --state-dir <another dir> (${stateDir} keeps them).`,
            ),
          onReady: () => {
            const info = {
              address: ready.address,
              namespace,
              uiUrl: ready.uiUrl,
              taskQueue,
              stateDir,
              dbFile: ready.dbFile,
              logFile: ready.logFile,
              localMeshState: localState,
              decisions: signingLine(deps.policy ?? RunbookPolicy.parse({})),
            };
            if (input.json) printJson(info);
            else devUsage(info).forEach((line) => printLine(line));
          },
        });
      } finally {
        if (server) {
          process.stderr.write('worker stopped; stopping the Temporal dev server…\n');
          await server.stop();
          process.stderr.write(
            `stopped; runbooks stay in ${server.dbFile} and resume with \`${resumeWith}\`\n`,
          );
        }
        stop.dispose();
      }
    });
}

async function refuseBusyPorts(
  { portInUse, recordedServer }: typeof DevServerModule,
  stateDir: string,
  port: number,
  uiPort: number,
): Promise<void> {
  for (const [which, value] of [
    ['--port', port],
    ['--ui-port', uiPort],
  ] as const) {
    if (!(await portInUse(IP, value))) continue;
    const recorded = recordedServer(stateDir);
    if (recorded?.ownerAlive) {
      throw new UsageError(
        `Port ${value} (${which}) is in use by a \`mesh runbook dev\` that is already running with ${stateDir}.`,
        `Use that one (TEMPORAL_ADDRESS=${IP}:${port}), or stop it with Ctrl-C in its terminal first.`,
      );
    }
    throw new UsageError(
      `Port ${value} (${which}) is already in use${recorded ? `, probably by the Temporal server an earlier \`mesh runbook dev\` left behind (pid ${recorded.serverPid})` : ''}.`,
      recorded
        ? `Stop it with \`kill ${recorded.serverPid}\` and run \`mesh runbook dev\` again.`
        : `Stop what listens there, or pick another port with ${which}.`,
    );
  }
}
