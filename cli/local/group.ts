import type { Command } from 'commander';

/**
 * `mesh local`: the reference mesh over this machine's Docker engine, for demos and tests. Only the group
 * itself, so `mesh --help` loads none of its verbs; ./index adds them.
 */
export function declareLocal(program: Command): Command {
  return program
    .command('local')
    .description("the local reference mesh: nodes and modules on this machine's Docker engine")
    .option(
      '--state-dir <dir>',
      'where the local mesh keeps its state (default: $MESH_LOCAL_STATE, else ~/.local/state/mesh/local)',
    );
}
