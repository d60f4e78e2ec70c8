import { DataPathMoveInput } from './data-path-move-input';
import { DATA_PATH_MOVE } from './data-path-move-plan';
import { plain } from './runbook/details';
import { defineKind, type LockClaim } from './runbook/kind';

/** The spec and the upgrade policy are the module's: a move fleet holds its lock from before the canary. */
export function moveFleetLocks({ module }: { module: string }): LockClaim {
  return { nodes: [], modules: [module], what: `data-path-move fleet of ${module}` };
}

/** A data-path move: a module's data copied to a new host path, its containers recreated on it. */
export const DATA_PATH_MOVE_KIND = defineKind({
  kind: 'data-path-move',
  plan: DATA_PATH_MOVE,
  input: DataPathMoveInput,
  workflowType: 'dataPathMove',
  describe: (i) => ({
    summary: `data-path-move on ${i.node}: ${i.module} ${i.from} → ${i.to} (started by ${i.startedBy})`,
    parameters: [
      `**from:** ${plain(i.from)}`,
      `**to:** ${plain(i.to)}`,
      `**containers:** ${i.containers?.join(', ') || 'whatever mounts --from'}`,
    ],
  }),
  // A fleet's node: the fleet holds the module's lock (and its policy) for all its nodes.
  locks: ({ node, nodes: all, module, fleet }) => {
    const nodes = all.length > 0 ? [node, ...all.filter((n) => n !== node)] : [node];
    return {
      nodes,
      modules: fleet ? [] : [module],
      what: `data-path-move of ${module} on ${nodes.join(', ')}${fleet ? ` for ${fleet.fleet}` : ''}`,
    };
  },
  fleet: { workflowType: 'dataPathMoveFleet', locks: moveFleetLocks },
});
