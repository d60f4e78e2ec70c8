import { removeNodeContainers } from '../../docker/cleanup';
import { createMeshActivities } from '../../activities/mesh';
import { LocalMesh } from '../../mesh/local';
import type { MeshPort } from '../../mesh/port';
import { parseMeshJson } from '../../mesh/parse';
import { ApplyReport, NodeState, type PushReceipt } from '../../mesh/schemas';
import { seedEdgeFlip } from '../../test/support/edge-flip-seed';
import { runbookWorld } from '../../test/support/runbook-world';
import { statusWhen } from '../../test/support/runbooks';
import { edgeFlip } from '../../workflows';
import type { RunbookStatus } from '../../workflows/contracts';
import { classify, type ContainerEvidence } from '../../workflows/verdict';
import { reportMutations, type Expected, type HostileTexts, type Mutation } from './hostile-documents';
import type { ExperimentResult, RunResult } from './result';
import { CHAOS_TIMINGS } from './runbook-cases';

/** A control character in text an operator's terminal shows (line breaks of a multi-line text aside). */
function hasControl(text: string): boolean {
  for (const ch of text) {
    const code = ch.codePointAt(0) ?? 0;
    if ((code < 0x20 && ch !== '\n') || (code >= 0x7f && code <= 0x9f) || code === 0x202e) return true;
  }
  return false;
}

/** Whether a verdict is what the mutation calls for. `ok` is always a wrong proceed. */
function fits(verdict: string, expected: Expected): boolean {
  if (verdict === 'ok') return false;
  return expected === 'not-ok' || verdict === expected;
}

/** A converged edge on node chaos1: what the pure functions judge each mutation against. */
function truth() {
  const node = 'chaos1';
  const module = 'route-proxy';
  const containers = ['edge', 'ca', 'dns'];
  const ids = [
    'route-proxy/dir:/var/lib/route-proxy/ca',
    ...containers.map((c) => `route-proxy/container:${c}`),
  ];
  const receipt: PushReceipt = { pushId: 'chaos1-7', node, sent: ids.length, resourceIds: ids };
  const report: ApplyReport = {
    pushId: 'chaos1-7',
    node,
    applied: ids.length,
    appliedIds: ids,
    held: [],
    failed: [],
    finishedAt: '2026-12-01T12:00:00.000Z',
  };
  const state: NodeState = {
    node,
    adopted: true,
    hostRoot: '/',
    assigned: ['caddy', module],
    taken: [module],
    holds: [],
    lastApply: report,
  };
  const evidence: ContainerEvidence[] = containers.map((container) => ({
    module,
    container,
    name: `${node}.${module}.${container}`,
    desiredMounts: [],
    observed: {
      exists: true,
      state: 'running',
      health: 'healthy',
      restartCount: 0,
      restartCountStable: true,
      mounts: [],
    },
  }));
  return { node, module, receipt, report, state, containers: evidence };
}

/**
 * A mesh port that answers with the mutation's documents, parsed by the parser the local mesh reads its
 * files with; only the two reads a gate makes are used.
 */
function documentsMesh(t: ReturnType<typeof truth>, texts: HostileTexts): MeshPort {
  const answer = {
    applyReport: async () =>
      texts.report === undefined ? t.report : parseMeshJson(ApplyReport, texts.report, 'apply report'),
    nodeState: async () =>
      texts.nodeState === undefined ? t.state : parseMeshJson(NodeState, texts.nodeState, 'node state'),
    watchReports: () => () => undefined,
  };
  return answer as unknown as MeshPort;
}

/** Judges one mutation as a gate does: the activity that collects the documents, then the verdict rule. */
async function judgeInProcess(mutation: Mutation, t: ReturnType<typeof truth>): Promise<RunResult> {
  const began = Date.now();
  const texts = mutation.texts(t.report, t.state);
  const { collectApplyEvidence } = createMeshActivities({ mesh: documentsMesh(t, texts) });
  const { report, nodeState } = await collectApplyEvidence({
    node: t.node,
    pushId: t.receipt.pushId,
    timeoutMs: 1_000,
  });
  const verdict = classify({
    node: t.node,
    module: t.module,
    receipt: { readable: true, value: t.receipt },
    report,
    nodeState,
    containers: t.containers,
    healthDeadlinePassed: false,
    revision: 2,
  });
  const notes: string[] = [];
  if (!fits(verdict.verdict, mutation.expected))
    notes.push(`verdict ${verdict.verdict}, not ${mutation.expected}`);
  if (hasControl(verdict.reason))
    notes.push(`control characters in the sentence: ${JSON.stringify(verdict.reason.slice(0, 200))}`);
  if (verdict.reason.length > 4_000) notes.push(`a sentence of ${verdict.reason.length} characters`);
  const ms = Date.now() - began;
  if (ms > 30_000) notes.push(`judged in ${ms} ms`);
  return {
    name: mutation.name,
    passed: notes.length === 0,
    lost: 0,
    duplicated: 0,
    wrongProceeds: verdict.verdict === 'ok' ? 1 : 0,
    notes,
  };
}

/** Every mutation through mesh's parser and the verdict rule, in this process. */
export async function judgeAll(mutations: Mutation[]): Promise<RunResult[]> {
  const t = truth();
  const results: RunResult[] = [];
  for (const mutation of mutations) results.push(await judgeInProcess(mutation, t));
  return results;
}

/**
 * The real local mesh, except that on the nodes it is told to, the node's apply report or state goes out
 * as the hostile text of a mutation, parsed by the parser the local mesh reads its files with.
 */
class HostileMesh extends LocalMesh {
  readonly hostile = new Map<string, Mutation>();

  private async hostileTexts(node: string, report: ApplyReport): Promise<HostileTexts> {
    const mutation = this.hostile.get(node);
    return mutation ? mutation.texts(report, await super.nodeState(node)) : {};
  }

  override async applyReport(node: string, pushId: string): Promise<ApplyReport | undefined> {
    const report = await super.applyReport(node, pushId);
    const text = report && (await this.hostileTexts(node, report)).report;
    return text === undefined
      ? report
      : parseMeshJson(ApplyReport, text, `apply report of ${pushId} on ${node}`);
  }

  override async nodeState(node: string): Promise<NodeState> {
    const state = await super.nodeState(node);
    const text = state.lastApply ? (await this.hostileTexts(node, state.lastApply)).nodeState : undefined;
    return text === undefined ? state : parseMeshJson(NodeState, text, `state of node ${node}`);
  }
}

const STEPS_AFTER_GATE = [
  'take',
  'verify-successor',
  'probe-successor',
  'approve-stop-predecessor',
  'stop-predecessor',
];

/** Spread over the kinds of mutation, the 10 MB ones always among them. */
function sample(mutations: Mutation[], count: number): Mutation[] {
  const big = mutations.filter((m) => m.name.includes('10 MB'));
  const rest = mutations.filter((m) => !m.name.includes('10 MB'));
  const step = rest.length / Math.max(1, count - big.length);
  const picked = Array.from(
    { length: Math.max(0, count - big.length) },
    (_, i) => rest[Math.floor(i * step + step / 2)],
  );
  return [...picked.filter((m): m is Mutation => m !== undefined), ...big].slice(0, count);
}

/**
 * Experiment 5: over a thousand malformed and hostile apply reports and node states. Every one goes through
 * mesh's parser and the verdict rule in this process; a sample goes through a real edge flip (the local
 * mesh, Docker, the dev server, a worker) whose node sends it: the runbook must wait at gate-apply with
 * the expected verdict, no later step started, and its worker answering.
 */
export async function hostileMeshInput(
  quick: boolean,
  log: (line: string) => void,
): Promise<ExperimentResult> {
  const started = Date.now();
  const mutations = reportMutations();
  const t = truth();
  const baseline = classify({
    node: t.node,
    module: t.module,
    receipt: { readable: true, value: t.receipt },
    report: { readable: true, value: t.report },
    nodeState: { readable: true, value: t.state },
    containers: t.containers,
    healthDeadlinePassed: false,
    revision: 2,
  });
  if (baseline.verdict !== 'ok') throw new Error(`the true documents are not ok: ${baseline.reason}`);
  const inProcess = await judgeAll(mutations);
  const failed = inProcess.filter((r) => !r.passed);
  log(`  ${mutations.length} documents judged in process, ${failed.length} wrong`);
  for (const r of failed.slice(0, 20)) log(`    ${r.name}: ${r.notes.join('; ')}`);

  const runs: RunResult[] = [...inProcess];
  await using world = await runbookWorld({ mesh: (stateDir) => new HostileMesh({ stateDir }) });
  for (const mutation of sample(mutations, quick ? 2 : 14)) {
    const run = await throughRunbook(world, mutation).catch((error: unknown) => ({
      name: `runbook: ${mutation.name}`,
      passed: false,
      lost: 1,
      duplicated: 0,
      wrongProceeds: 0,
      notes: [`the harness failed: ${error instanceof Error ? error.message : String(error)}`],
    }));
    log(`  runbook: ${mutation.name}: ${run.passed ? 'waits as it should' : run.notes.join('; ')}`);
    runs.push(run);
  }
  return { experiment: 'hostile mesh input', runs, seconds: (Date.now() - started) / 1000 };
}

async function throughRunbook(
  world: Awaited<ReturnType<typeof runbookWorld<HostileMesh>>>,
  mutation: Mutation,
): Promise<RunResult> {
  const input = await seedEdgeFlip(world);
  world.mesh.hostile.set(input.node, mutation);
  const handle = await world.start(edgeFlip, { ...input, timings: { ...input.timings, ...CHAOS_TIMINGS } });
  const notes: string[] = [];
  let status: RunbookStatus | undefined;
  try {
    status = await statusWhen(handle, (s) => s.waiting !== null || s.phase !== 'running', 240_000);
  } catch (error) {
    notes.push(`no wait: ${error instanceof Error ? error.message.slice(0, 300) : String(error)}`);
  }
  const wrong = (status?.steps ?? []).filter(
    (s) => STEPS_AFTER_GATE.includes(s.name) && s.startedAt !== undefined,
  );
  if (status) {
    if (status.waiting?.gate !== 'gate-apply')
      notes.push(
        `${status.phase} ${status.waiting ? `waiting at ${status.waiting.gate}` : ''}: ${status.outcome ?? ''}`,
      );
    else if (!fits(status.waiting.verdict, mutation.expected))
      notes.push(
        `waits with ${status.waiting.verdict}, not ${mutation.expected}: ${status.waiting.reason.slice(0, 200)}`,
      );
    if (status.waiting && hasControl(status.waiting.reason)) notes.push('control characters in the sentence');
  }
  for (const step of wrong) notes.push(`${step.name} started past the gate`);
  await handle.terminate('chaos: hostile input judged').catch(() => undefined);
  world.mesh.hostile.delete(input.node);
  await removeNodeContainers([input.node], world.engine);
  return {
    name: `runbook: ${mutation.name}`,
    passed: notes.length === 0,
    lost: status ? 0 : 1,
    duplicated: 0,
    wrongProceeds: wrong.length,
    notes,
  };
}
