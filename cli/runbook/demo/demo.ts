import { Argument, type Command } from 'commander';
import { findTemporalCli } from '../../../worker/temporal-binary';
import { UsageError } from '../../errors';
import { load } from '../lazy';
import { parseOptions } from '../options';
import { DEMO_KINDS, DemoSettings, isDemoKind } from './settings';

export function registerDemo(runbook: Command): void {
  runbook
    .command('demo')
    .description(
      'replay an incident as a runbook that waits, on a local Temporal dev server and local Docker',
    )
    .addArgument(
      new Argument(
        '[kind]',
        'edge-flip (the novox incident, default), data-path-move (the forge incident) or fleet (four nodes flipped by one fleet runbook, novox held in the middle)',
      )
        .choices(DEMO_KINDS)
        // The kinds for help and completion; any other gets the action's own sentence.
        .argParser((kind: string) => kind),
    )
    .option('--yes', 'answer each gate itself (take, recreate, approve), printing every decision')
    .option(
      '--resume',
      "carry on with the demo's runbook where it stopped (Ctrl-C, or no terminal): same state, server database and task queue",
    )
    .option(
      '--state-dir <dir>',
      'where the demo keeps its server database and local mesh (default ~/.local/state/mesh/demo)',
    )
    .option(
      '--node <name>',
      'the demo node (default novox, or forge1 for data-path-move; for fleet, the held node in the middle)',
    )
    .option('--port <port>', 'the Temporal gRPC port (default 7233, or a free one when it is taken)')
    .option('--ui-port <port>', 'the Web UI port (default 8233, or a free one when it is taken)')
    .option('--keep-running', 'keep the server, worker and Web UI up after the demo, until Ctrl-C')
    .option(
      '--reset',
      "remove what a demo left: its nodes' containers and its state directory (server database, local mesh); starts nothing",
    )
    .action(async (kind: string | undefined, options: object) => {
      if (kind !== undefined && !isDemoKind(kind))
        throw new UsageError(
          `There is no ${kind} demo.`,
          'Run `mesh runbook demo edge-flip`, `mesh runbook demo data-path-move` or `mesh runbook demo fleet`.',
        );
      const settings = parseOptions(DemoSettings, { kind, ...options }, ['kind']);
      if (settings.reset) {
        if (settings.resume)
          throw new UsageError(
            '--reset removes the demo that --resume would carry on; give one of them.',
            'Run `mesh runbook demo --reset` to remove the demo, or `mesh runbook demo --resume` to go on with it.',
          );
        return load.demo().resetDemo(settings);
      }
      if (!findTemporalCli())
        throw new UsageError(
          'No Temporal CLI found to run the demo with.',
          'Run ./scripts/bootstrap.sh first.',
        );
      const { resumeDemo, runDemo } = load.demo();
      await (settings.resume ? resumeDemo(settings) : runDemo(settings));
    });
}
