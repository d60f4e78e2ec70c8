import { moveMounts } from '../../activities/mesh/module-mounts';
import type { ModuleSpec } from '../../mesh/schemas';
import type { DataPathMoveInput } from '../../workflows/contracts';
import { DATA_PATH_MOVE } from '../../workflows/data-path-move-plan';
import type {
  ExpectedDecision,
  PathUserReport,
  PlanReport,
  PredictedHold,
  UnrecreatedContainer,
} from '../../workflows/plan-report';
import { bracePaths, dirOf, predictHolds } from './holds';
import { okBecause, planReport, type Predicted } from './report';
import { unlessRefused, type PlanReader } from './reader';
import { TEMPORAL_NOT_ASKED, whoHolds } from './sentences';

/**
 * Predicts a data-path move from the nodes as they are: its preflight's refusals, the containers on the
 * old path that the push will not recreate, who else uses the path, and what the nodes will hold.
 */
export async function planDataPathMove(
  r: PlanReader,
  input: DataPathMoveInput,
  asFleet = false,
): Promise<PlanReport> {
  const { module, from, to } = input;
  const named =
    input.nodes.length > 0 ? [input.node, ...input.nodes.filter((n) => n !== input.node)] : [input.node];
  const refusals: string[] = [];
  const spec = await unlessRefused(refusals, () => r.act.readModuleSpec({ module }));
  // A fleet on a spec that mounts B already (an earlier move switched it) moves the nodes still on A.
  const resuming = asFleet && spec !== undefined && mountsOnly(spec, to, from);
  const alreadyMoved = resuming ? await movedBefore(r, named, input) : [];
  const nodes = named.filter((n) => !alreadyMoved.includes(n));
  const node = nodes[0] ?? input.node;
  if (resuming && nodes.length === 0)
    refusals.push(`every node of ${module} runs on ${to} already: nothing is left to move`);
  const moduleNodes = spec ? await r.act.moduleNodes({ module }) : [];
  const base = { kind: 'data-path-move' as const, node, module, nodes, moduleNodes };
  const size = { files: 0, bytes: 0 };
  for (const n of nodes) {
    const found = await unlessRefused(refusals, () => r.act.preflightMove({ node: n, from, to }));
    if (found) [size.files, size.bytes] = [size.files + found.files, size.bytes + found.bytes];
  }
  const refused = (pathUsers: PathUserReport[] = []) =>
    planReport(DATA_PATH_MOVE, {
      ...base,
      refusals,
      holds: [],
      unrecreated: [],
      pathUsers,
      predictions: {},
      decisions: [],
      notChecked: [TEMPORAL_NOT_ASKED],
    });
  // The runbook stops at the first node its preflight refuses; an unknown node has nothing more to read.
  if (!spec || refusals.length > 0) return refused();
  const unnamed = moduleNodes.filter((n) => !named.includes(n));
  if (unnamed.length > 0)
    refusals.push(
      `${module} is assigned to ${moduleNodes.join(', ')}; its spec and policy are the same on every node, so a move changes them all: name them all (--nodes ${moduleNodes.join(',')}) and the runbook moves each node's data`,
    );
  const notAssigned = nodes.filter((n) => !moduleNodes.includes(n));
  if (notAssigned.length > 0) refusals.push(`${module} is not assigned to ${notAssigned.join(', ')}`);
  const onOld = await r.act.containersMounting({ node, module, path: resuming ? to : from });
  if (onOld.length === 0) refusals.push(`no container of ${module} mounts ${from}`);
  const expected = [...input.containers].sort();
  if (expected.length > 0 && onOld.length > 0 && expected.join() !== [...onOld].sort().join())
    refusals.push(
      `the containers mounting ${from} are ${onOld.join(', ')}, not the expected ${expected.join(', ')}`,
    );
  const { pathUsers, foreign } = await usersOf(r, nodes, from, module);
  if (foreign.length > 0) refusals.push(`${from} is used by more than ${module}: ${foreign.join(', ')}`);

  if (refusals.length > 0) return refused(pathUsers);

  const moved = moveMounts(spec, from, to).spec;
  const unrecreated = await containersLeftOnOld(r, nodes, spec, onOld, input);
  const holds = (await Promise.all(nodes.map((n) => holdsAfterSwitch(r, n, moved, to)))).flat();
  const gate = gateApply(input, unrecreated, holds);
  const predictions: Record<string, Predicted> = {
    locks: {
      predicted: 'runs',
      because: `takes ${nodes.join(', ')} and ${module} at start (see Not checked)`,
    },
    preflight: {
      predicted: 'runs',
      because: `${size.files} files, ${size.bytes} bytes on ${nodes.join(', ')}; ${resuming ? `the spec mounts ${to} already (an earlier move switched it)${alreadyMoved.length > 0 ? `, ${alreadyMoved.join(', ')} run on ${to} already and are not moved again` : ''}` : `${onOld.join(', ')} mount ${from}`}; no other container uses it`,
    },
    'freeze-policy': {
      predicted: 'runs',
      because: `${module} is ${spec.upgradePolicy}; manual during the move`,
    },
    'stop-containers': { predicted: 'runs', because: `stops ${onOld.join(', ')} on ${nodes.join(', ')}` },
    copy: { predicted: 'runs', because: `${size.files} files, ${size.bytes} bytes to ${to}` },
    'verify-copy': okBecause('nothing writes to the copy while the containers are stopped'),
    'record-baseline': { predicted: 'runs', because: `remembers ${from} and ${to} as verified` },
    push: { predicted: 'runs', because: `pushes ${nodes.join(', ')}` },
    'switch-spec': { predicted: 'runs', because: `${onOld.join(', ')} will mount ${to}` },
    'gate-apply': gate.prediction,
    'catch-up': gate.recreate
      ? okBecause(`only if you choose recreate: brings to ${to} what changed on ${from} since the copy`)
      : { predicted: 'skipped', because: 'no container is predicted on the old path' },
    recreate: gate.recreate
      ? { predicted: 'runs', because: `only if you choose recreate: ${gate.recreate}` }
      : { predicted: 'skipped', because: 'no container is predicted on the old path' },
    'restore-policy': { predicted: 'runs', because: `back to ${spec.upgradePolicy}` },
    'approve-remove-old-data': { predicted: 'asks', because: 'an approval always waits for a decision' },
    'remove-old-data': { predicted: 'runs', because: `only if you choose remove: deletes ${from}` },
    'after-switch': { predicted: 'skipped', because: 'only in a rollback after switch-spec' },
  };
  return planReport(DATA_PATH_MOVE, {
    ...base,
    refusals,
    holds,
    unrecreated,
    pathUsers,
    predictions,
    decisions: gate.decisions,
    notChecked: [TEMPORAL_NOT_ASKED],
  });
}

/** Whether the spec's containers mount `path` and none mounts `not`. */
function mountsOnly(spec: ModuleSpec, path: string, not: string): boolean {
  const mounts = spec.containers.flatMap((c) => c.mounts.map((m) => m.hostPath));
  return mounts.includes(path) && !mounts.includes(not);
}

/** The nodes whose containers of the module run on B already and none on A, as each node's engine shows. */
async function movedBefore(r: PlanReader, nodes: string[], { module, from, to }: DataPathMoveInput) {
  const moved: string[] = [];
  for (const n of nodes) {
    const own = (users: { module?: string; node?: string }[]) =>
      users.filter((u) => u.module === module && u.node === n);
    const onA = own(await r.act.containersUsingPath({ node: n, path: from }));
    const onB = own(await r.act.containersUsingPath({ node: n, path: to }));
    if (onA.length === 0 && onB.length > 0) moved.push(n);
  }
  return moved;
}

/** Every container using the path on each node; those of another module (or none, or another node) refuse. */
async function usersOf(r: PlanReader, nodes: string[], path: string, module: string) {
  const found = await Promise.all(nodes.map((n) => r.act.containersUsingPath({ node: n, path })));
  const pathUsers: PathUserReport[] = found.flatMap((users, i) =>
    users.map((u) => ({
      node: nodes[i] ?? '',
      path,
      name: u.name,
      module: u.module ?? null,
      state: u.state,
      source: u.source,
    })),
  );
  const foreign = found.flatMap((users, i) =>
    users
      .filter((u) => !(u.module === module && u.node === nodes[i]))
      .map(
        (u) =>
          `${u.name} on ${nodes[i]} (${u.module ? `module ${u.module}` : 'no module'}) mounts ${u.source}`,
      ),
  );
  return { pathUsers, foreign };
}

/**
 * The containers mounting A that exist: the runbook stops them, and the push after the spec switch starts
 * them again as they are, on A (mesh recreates no container for a mount change, and the frozen policy
 * rebuilds nothing). A container that does not exist yet is created on B.
 */
async function containersLeftOnOld(
  r: PlanReader,
  nodes: string[],
  spec: ModuleSpec,
  onOld: string[],
  { module, from, to }: DataPathMoveInput,
): Promise<UnrecreatedContainer[]> {
  const left: UnrecreatedContainer[] = [];
  for (const n of nodes) {
    const found = await r.act.inspectModuleContainers({ node: n, module, stabilityWindowMs: 0 });
    for (const c of found)
      if (onOld.includes(c.container) && c.observed.exists)
        left.push({
          node: n,
          module,
          container: c.container,
          name: c.name,
          state: c.observed.state,
          from,
          to,
          upgradePolicy: spec.upgradePolicy,
        });
  }
  return left;
}

/** On an adopted node where the module is not taken, the copy on B is data mesh did not make: held. */
async function holdsAfterSwitch(
  r: PlanReader,
  node: string,
  moved: ModuleSpec,
  to: string,
): Promise<PredictedHold[]> {
  const state = await r.mesh.nodeState(node);
  const others = state.assigned.filter((m) => m !== moved.module);
  const specs = [...(await Promise.all(others.map((m) => r.act.readModuleSpec({ module: m })))), moved];
  const onDisk = new Map<string, boolean>();
  for (const dir of specs.flatMap((s) => s.dataDirs))
    onDisk.set(dir, dir === to || (await r.existsOnNode(node, dir)));
  return predictHolds(state, specs, (dir) => onDisk.get(dir) ?? false);
}

function gateApply(
  { module, from, to }: DataPathMoveInput,
  left: UnrecreatedContainer[],
  holds: PredictedHold[],
): { prediction: Predicted; decisions: ExpectedDecision[]; recreate?: string } {
  const decisions: ExpectedDecision[] = [];
  const own = holds.filter((h) => h.module === module);
  const others = holds.filter((h) => h.module !== module);
  if (own.length > 0) {
    const where = [...new Set(own.map((h) => h.node))].join(', ');
    decisions.push({
      step: 'gate-apply',
      action: 'take',
      sentence: `you will be asked to \`take\` ${module}: ${bracePaths([...new Set(own.flatMap((h) => dirOf(h.resource) ?? []))])} will exist on ${where} (adopted, ${module} not taken), so the node will hold ${own.length} of its resources`,
    });
  }
  if (others.length > 0)
    decisions.push({
      step: 'gate-apply',
      action: 'retry',
      sentence: `gate-apply will wait for \`retry\` or \`abort\`: the node will hold ${whoHolds(others)}`,
    });
  const names = left.map((c) => `${c.name} (${c.state}, ${c.upgradePolicy})`).join(', ');
  const recreate = left.length > 0 ? `recreates ${left.map((c) => c.name).join(', ')} on ${to}` : undefined;
  if (left.length > 0)
    decisions.push({
      step: 'gate-apply',
      action: 'recreate',
      sentence: `you will be asked to \`recreate\`: ${names} ${left.length === 1 ? 'mounts' : 'mount'} ${from}; the push after the spec switch starts them as they are, on ${from} (mesh does not recreate a container for a mount change, and the policy is frozen to manual)`,
    });
  if (decisions.length === 0)
    return {
      prediction: okBecause(
        `no container of ${module} exists yet on ${from}; the push creates them on ${to}`,
      ),
      decisions,
    };
  const predicted = holds.length > 0 ? 'held' : 'unrecreated-volume';
  return {
    prediction: { predicted, because: decisions.map((d) => d.sentence).join('; ') },
    decisions,
    ...(recreate !== undefined ? { recreate } : {}),
  };
}
