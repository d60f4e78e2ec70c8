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

/** The verbs of `mesh local` (declared by ./group), on the group's command. */
export function addLocalVerbs(local: Command): void {
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
