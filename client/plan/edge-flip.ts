import { summariseProbes } from '../../activities/probes';
import type { ModuleSpec, NodeState } from '../../mesh/schemas';
import { compareMounts } from '../../workflows/verdict/containers';
import type { ContainerEvidence } from '../../workflows/verdict/evidence';
import type { EdgeFlipInput } from '../../workflows/contracts';
import { EDGE_FLIP } from '../../workflows/edge-flip-plan';
import type { ExpectedDecision, PlanReport, UnrecreatedContainer } from '../../workflows/plan-report';
import { bracePaths, dirOf, predictHolds } from './holds';
import { TEMPORAL_NOT_ASKED, whoHolds } from './sentences';
import { okBecause, planReport, type Predicted } from './report';
import { unlessRefused, type PlanReader } from './reader';

/**
 * Predicts an edge flip from the node as it is: the refusals its preflight would meet, what the node
 * will hold at its push and why, successor containers the push would start on an older spec, and the
 * decisions the operator will be asked for.
 */
export async function planEdgeFlip(r: PlanReader, input: EdgeFlipInput): Promise<PlanReport> {
  const { node, module, predecessor } = input;
  const refusals: string[] = [];
  const state = await unlessRefused(refusals, () => r.mesh.nodeState(node));
  const successor = await unlessRefused(refusals, () => r.act.readModuleSpec({ module }));
  await unlessRefused(refusals, () => r.act.readModuleSpec({ module: predecessor }));
  const moduleNodes = successor ? await r.act.moduleNodes({ module }) : [];
  const base = {
    kind: 'edge-flip' as const,
    node,
    module,
    nodes: [node],
    moduleNodes,
    pathUsers: [],
    notChecked: [TEMPORAL_NOT_ASKED],
  };
  const none = { holds: [], unrecreated: [], predictions: {}, decisions: [] };
  if (!state || !successor) return planReport(EDGE_FLIP, { ...base, refusals, ...none });

  const preflight = await preflightRefusals(r, input);
  refusals.push(...preflight.refusals);
  if (refusals.length > 0) return planReport(EDGE_FLIP, { ...base, refusals, ...none });

  const sent = await specsPushed(r, state, successor);
  const onDisk = new Map<string, boolean>();
  for (const dir of sent.flatMap((spec) => spec.dataDirs)) onDisk.set(dir, await r.existsOnNode(node, dir));
  const holds = predictHolds(state, sent, (dir) => onDisk.get(dir) ?? false);
  const unrecreated = await staleSuccessorContainers(
    r,
    input,
    successor,
    new Set(holds.map((h) => h.resource)),
  );
  const gate = gateApply(input, state, holds, unrecreated);
  const resources = sent.reduce((n, spec) => n + spec.dataDirs.length + spec.containers.length, 0);
  const predictions: Record<string, Predicted> = {
    locks: { predicted: 'runs', because: `takes ${node} at start (see Not checked)` },
    preflight: { predicted: 'runs', because: preflight.note },
    'assign-successor': {
      predicted: 'runs',
      because: state.assigned.includes(module)
        ? `${module} is assigned to ${node} already`
        : `assigns ${module} to ${node}`,
    },
    push: {
      predicted: 'runs',
      because: `sends ${resources} resource(s): ${sent.map((s) => s.module).join(', ')}`,
    },
    'gate-apply': gate.prediction,
    take: gate.take
      ? { predicted: 'runs', because: `only if you choose take: ${gate.take}` }
      : { predicted: 'skipped', because: `nothing is predicted held for ${module}` },
    'verify-successor': okBecause(
      `nothing on ${node} predicts a failure; ${module}'s ${successor.containers.length} container(s) are inspected once they run`,
    ),
    'probe-successor': okBecause(`probed at ${input.successorAddress} once ${module} runs`),
    'approve-stop-predecessor': { predicted: 'asks', because: 'an approval always waits for a decision' },
    'recheck-successor': okBecause('the successor is verified and probed again right after the approval'),
    'stop-predecessor': {
      predicted: 'runs',
      because: `stops ${preflight.predecessorContainers.join(', ')}`,
    },
    'probe-public': {
      predicted: 'runs',
      because: `then ${input.publicNames.join(', ')} must answer from ${module} on ${input.publicAddress}`,
    },
    'unassign-predecessor': { predicted: 'runs', because: `unassigns ${predecessor} from ${node}` },
    'gate-clean': okBecause(`nothing predicts a hold or drift once ${predecessor} is unassigned`),
  };
  return planReport(EDGE_FLIP, {
    ...base,
    refusals,
    holds,
    unrecreated,
    predictions,
    decisions: gate.decisions,
  });
}

/** The runbook's own preflight checks, read the same way: its first refusal is the one it would give. */
async function preflightRefusals(r: PlanReader, input: EdgeFlipInput) {
  const { node, module, predecessor } = input;
  const refusals: string[] = [];
  const predecessorContainers = await r.act.runningModuleContainers({ node, module: predecessor });
  if (predecessorContainers.length === 0)
    refusals.push(`predecessor ${predecessor} has no running container on ${node}`);
  const successorRunning = await r.act.runningModuleContainers({ node, module });
  if (successorRunning.length > 0)
    refusals.push(`successor ${module} is already running on ${node}: ${successorRunning.join(', ')}`);
  // As the runbook's preflight probes: the predecessor's own answer, from this node.
  const target = {
    address: input.publicAddress,
    expectStatus: input.expectStatus,
    ...(input.predecessorMarker !== undefined ? { marker: input.predecessorMarker } : {}),
    ...(input.successorMarker !== undefined ? { absentMarker: input.successorMarker } : {}),
    ...(input.nodeHeader !== undefined ? { node, nodeHeader: input.nodeHeader } : {}),
  };
  const probed = await r.act.probePublicNames({ ...target, names: input.publicNames, timeoutMs: 5_000 });
  const served = summariseProbes(probed, target);
  if (probed.some((p) => !p.ok))
    refusals.push(`the predecessor does not serve the public names now: ${served}`);
  return {
    refusals,
    predecessorContainers,
    note: `${predecessor} runs ${predecessorContainers.join(', ')}; ${module} does not run; ${served}`,
  };
}

/** The specs the runbook's push sends: every module assigned to the node, and the successor. */
async function specsPushed(r: PlanReader, state: NodeState, successor: ModuleSpec): Promise<ModuleSpec[]> {
  const others = state.assigned.filter((m) => m !== successor.module);
  const specs = await Promise.all(others.map((m) => r.act.readModuleSpec({ module: m })));
  return [...specs, successor];
}

/**
 * Successor containers that exist (stopped) from an earlier attempt on another spec: the push starts them
 * as they are, so they would keep their old mounts and image. Those a hold keeps from running are not.
 */
async function staleSuccessorContainers(
  r: PlanReader,
  input: EdgeFlipInput,
  spec: ModuleSpec,
  held: Set<string>,
): Promise<UnrecreatedContainer[]> {
  const { node, module } = input;
  const found = await r.act.inspectModuleContainers({ node, module, stabilityWindowMs: 0 });
  return found.flatMap((c) => {
    if (!c.observed.exists || onItsSpec(c)) return [];
    if (held.has(`${module}/container:${c.container}`)) return [];
    const observed = c.observed.mounts.map((m) => m.source).join(', ') || 'no mounts';
    const desired = c.desiredMounts.map((m) => m.source).join(', ') || 'no mounts';
    return [
      {
        node,
        module,
        container: c.container,
        name: c.name,
        state: c.observed.state,
        from: observed,
        to: desired,
        upgradePolicy: spec.upgradePolicy,
      },
    ];
  });
}

/**
 * Whether an existing container was made from its current spec: by the spec digest where the mesh labels
 * one, else by what can be read off any container, its image and its mounts.
 */
function onItsSpec(c: ContainerEvidence): boolean {
  const o = c.observed;
  if (!o.exists) return false;
  if (o.specHash !== undefined) return o.specHash === c.desiredSpecHash;
  return o.image === c.desiredImage && compareMounts(c.desiredMounts, o.mounts, []).length === 0;
}

/** gate-apply as the verdict would judge it: drift before held, as the gate rule orders them. */
function gateApply(
  input: EdgeFlipInput,
  state: NodeState,
  holds: ReturnType<typeof predictHolds>,
  stale: UnrecreatedContainer[],
): { prediction: Predicted; decisions: ExpectedDecision[]; take?: string } {
  const { node, module } = input;
  const decisions: ExpectedDecision[] = [];
  const own = holds.filter((h) => h.module === module);
  const others = holds.filter((h) => h.module !== module);
  let take: string | undefined;
  if (stale.length > 0) {
    const names = stale.map((c) => `${c.name} (${c.state})`).join(', ');
    decisions.push({
      step: 'gate-apply',
      action: 'recreate',
      sentence: `you will be asked to \`recreate\` or \`retry\`: ${names} exist on another spec of ${module}, and the push starts them as they are`,
    });
  }
  if (own.length > 0) {
    const dirs = own.flatMap((h) => dirOf(h.resource) ?? []);
    take = `${bracePaths(dirs)} exist on ${node}`;
    decisions.push({
      step: 'gate-apply',
      action: 'take',
      sentence: `you will be asked to \`take\` ${module}: ${take} (adopted, ${module} not taken), so ${node} will hold ${own.length} of its resources`,
    });
  }
  if (others.length > 0)
    decisions.push({
      step: 'gate-apply',
      action: 'retry',
      sentence: `gate-apply will wait for \`retry\` or \`abort\`: ${node} will hold ${whoHolds(others)}, which take of ${module} does not release`,
    });
  if (decisions.length === 0) {
    const taken = state.adopted ? (state.taken.includes(module) ? `, ${module} taken` : '') : '';
    return {
      prediction: okBecause(
        `${node} is ${state.adopted ? 'adopted' : 'not adopted'}${taken}; no data of the pushed modules is found unowned on its disk, no stale ${module} container`,
      ),
      decisions,
    };
  }
  const predicted = stale.length > 0 ? 'drift' : 'held';
  return {
    prediction: { predicted, because: decisions.map((d) => d.sentence).join('; ') },
    decisions,
    ...(take !== undefined ? { take } : {}),
  };
}
