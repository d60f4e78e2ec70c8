import { startDataPathMoveFleet } from '../../../client/start-fleet';
import { MeshRefusedError } from '../../../mesh/errors';
import { DataPathMoveFleetInput, type DataPathMoveFleetInputArg } from '../../../workflows/fleet/contracts';
import { firstIssueText } from '../../../base/zod-issue';
import { UsageError } from '../../errors';
import { withClient } from '../client';
import { load } from '../lazy';
import { showPlanAndConfirm } from './confirm-plan';
import { dataPathMoveInputFrom, type DataPathMoveStartOptions } from './data-path-move';
import { refuseBusyNode, signedBy, startFleetAndFollow } from './fleet-launch';
import { fleetOrder, fleetRulesOption, nodeListOption, type FleetOptions } from './fleet-options';
import { refuseOversizedFleet } from './fleet-size';
import type { LaunchOptions } from './launch';

type MoveFleetOptions = Omit<DataPathMoveStartOptions, 'node' | 'nodes'> &
  FleetOptions & { nodes: string } & LaunchOptions;

/**
 * `mesh runbook start data-path-move --nodes a,b,c`: one move per node, run by one fleet, the canary first.
 * Refused before anything starts: a node mesh does not know, a node of the module left out (its spec and
 * policy are the module's: the fleet moves every node), a busy node, what any node's preflight would refuse.
 */
export async function launchMoveFleet(options: MoveFleetOptions, startedBy: string): Promise<void> {
  const signing = signedBy(options.key, 'data-path-move');
  const input = await moveFleetInputFromMesh(options, startedBy);
  const nodes = input.runbooks.map((runbook) => runbook.node);
  await withClient(
    async (rb) => {
      for (const node of nodes) await refuseBusyNode(rb, node);
      // One plan over every node, as a move of them all at once: the same preflight each node's move runs.
      const [first] = input.runbooks;
      await showPlanAndConfirm(
        'data-path-move',
        { ...first, nodes },
        {
          yes: options.yes ?? false,
          json: options.json,
          quiet: true,
          question: `start the data-path-move fleet of ${input.module} on ${nodes.join(', ')}? [y/N] `,
          asFleet: true,
        },
      );
      await startFleetAndFollow(rb, options, {
        kind: 'data-path-move',
        input,
        what: (order) => `data-path-move fleet of ${input.module}, ${input.from} → ${input.to}: ${order}`,
        start: () =>
          startDataPathMoveFleet(rb.client, load.workflows().dataPathMoveFleet, input, {
            taskQueue: rb.taskQueue,
            ...signing,
          }),
      });
    },
    { operator: startedBy },
  );
}

/** The fleet's input: each node's move validated as a single start's, every node of the module named. */
async function moveFleetInputFromMesh(
  options: MoveFleetOptions,
  startedBy: string,
): Promise<DataPathMoveFleetInput> {
  const rules = fleetRulesOption(options);
  const named = nodeListOption(options.nodes);
  const mesh = load.workerDeps().depsFromEnv().mesh;
  const assigned = await mesh.moduleNodes(options.module).catch((error: unknown) => {
    if (error instanceof MeshRefusedError)
      throw new UsageError(
        `--module ${options.module}: ${error.message}`,
        'See the modules with `mesh local module list`.',
      );
    throw error;
  });
  const left = assigned.filter((node) => !named.includes(node));
  if (left.length > 0)
    throw new UsageError(
      `${options.module} is assigned to ${left.join(', ')} too; its spec and policy are the module's, so a fleet moves every node it runs on.`,
      `Name them all: --nodes ${[...named, ...left].join(',')}.`,
    );
  const strangers = named.filter((node) => !assigned.includes(node));
  if (strangers.length > 0)
    throw new UsageError(
      `--nodes names ${strangers.join(', ')}, where ${options.module} is not assigned.`,
      `Name the nodes it runs on: --nodes ${assigned.join(',') || '<nodes>'}.`,
    );
  const runbooks = fleetOrder(named, options.canary).map((node) =>
    dataPathMoveInputFrom({ ...options, node, nodes: undefined }, startedBy),
  );
  const [first] = runbooks;
  const raw: DataPathMoveFleetInputArg = {
    module: options.module,
    from: first?.from ?? options.from,
    to: first?.to ?? options.to,
    runbooks,
    ...rules,
    startedBy,
  };
  const parsed = DataPathMoveFleetInput.safeParse(raw);
  if (!parsed.success)
    throw new UsageError(
      `The fleet's input is invalid: ${firstIssueText(parsed.error)}.`,
      'Check --nodes, --from and --to.',
    );
  refuseOversizedFleet(parsed.data);
  return parsed.data;
}
