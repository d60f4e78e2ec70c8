import type { Command } from 'commander';

/**
 * `mesh runbook`: start, follow, decide on and abort durable runbooks; run their worker. Only the group
 * itself, so `mesh --help` loads none of its verbs (nor zod or Temporal's SDK); ./index adds them.
 */
export function declareRunbook(program: Command): Command {
  return program
    .command('runbook')
    .description('durable, evidence-checking cutovers on Temporal: start, follow, decide, abort')
    .addHelpText(
      'after',
      '\nExit codes: 0 ok (running or completed), 1 failure, 2 bad input, 3 waiting for a decision, ' +
        '4 rolled back, 5 failed or aborted, 130 detached (Ctrl-C; the runbook keeps running).\n' +
        'Temporal from TEMPORAL_ADDRESS / TEMPORAL_NAMESPACE; task queue from MESH_TASK_QUEUE (or TASK_QUEUE).',
    );
}
