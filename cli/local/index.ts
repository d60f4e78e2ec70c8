import type { Command } from 'commander';
import { registerAssign } from './assign';
import { registerBuild } from './build';
import { registerModuleDefine } from './module-define';
import { registerModuleList } from './module-list';
import { registerModuleShow } from './module-show';
import { registerNodeCreate } from './node-create';
import { registerNodeList } from './node-list';
import { registerNodeShow } from './node-show';
import { registerPush } from './push';
import { registerTake } from './take';
import { registerUnassign } from './unassign';

/** `mesh local ...`: the reference mesh over this machine's Docker engine, for demos and tests. */
export function registerLocalCommands(program: Command): void {
  const local = program
    .command('local')
    .description("the local reference mesh: nodes and modules on this machine's Docker engine")
    .option(
      '--state-dir <dir>',
      'where the local mesh keeps its state (default: $MESH_LOCAL_STATE, else ~/.local/state/mesh/local)',
    );

  const node = local.command('node').description('create and inspect local nodes');
  registerNodeCreate(node);
  registerNodeShow(node);
  registerNodeList(node);

  const module = local.command('module').description('define and inspect modules');
  registerModuleDefine(module);
  registerModuleShow(module);
  registerModuleList(module);

  registerAssign(local);
  registerUnassign(local);
  registerTake(local);
  registerPush(local);
  registerBuild(local);
}
