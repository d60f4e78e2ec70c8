import { ApplicationFailure, deprecatePatch, patched } from '@temporalio/workflow';
import { EDGE_FLIP_KIND } from './edge-flip-kind';
import { EDGE_FLIP } from './edge-flip-plan';
import { EdgeFlipInput, FAILURE, parseInput, type EdgeFlipInputArg, type RunbookStatus } from './contracts';
import { act, undoAct } from './runbook/activities';
import { failedWith, failureMessage, refuse, rollBack } from './runbook/failures';
import { judgePush } from './runbook/judge-push';
import { judgeRemoval } from './runbook/judge-removal';
import { ContainerMemory } from './runbook/memory';
import { openRunbook } from './runbook/open';
import { probeOnce, probeUntilServed, type ProbeTarget } from './runbook/probe';
import {
  APPROVAL_WATCHES_SUCCESSOR,
  LIGHT_THE_EDGE_FIRST,
  NODE_HOSTS,
  PARALLEL_READS,
  PREDECESSOR_BEFORE_SUCCESSOR,
  PUBLIC_BIND_WINDOW,
  SUCCESSOR_RESTARTS_SINCE_CREATED,
} from './runbook/revision';
import { containersChange, reaskedWatch, watchedAgainFact } from './runbook/watch';
import { recordNodeHosts } from './runbook/hosts';
import type { Look } from './runbook/runbook';
import { GATE_APPLY, PREFLIGHT } from './runbook/step-declarations';
import { pushNode } from './runbook/shared-steps';

/** The gates a fleet's approval rests on for this node: each one ok at its first look. */
const FIRST_LOOK_GATES = [GATE_APPLY, 'verify-successor', 'probe-successor'] as const;

/** Replace a node's edge proxy with its successor, never stopping the old one before the new one is proven. */
export async function edgeFlip(rawInput: EdgeFlipInputArg): Promise<RunbookStatus> {
  const input = parseInput(EdgeFlipInput, rawInput);
  const { node, module, predecessor, timings } = input;
  const publicNames = {
    names: input.publicNames,
    expectStatus: input.expectStatus,
    // Every probe proves which node answered when the operator named the header that says so.
    ...(input.nodeHeader !== undefined ? { node, nodeHeader: input.nodeHeader } : {}),
  };
  const onPublic: ProbeTarget = { ...publicNames, address: input.publicAddress };
  const successor: ProbeTarget = {
    ...publicNames,
    address: input.successorAddress,
    marker: input.successorMarker,
  };
  const predecessorAnswers: ProbeTarget = {
    ...onPublic,
    marker: input.predecessorMarker,
    absentMarker: input.successorMarker,
  };
  deprecatePatch(SUCCESSOR_RESTARTS_SINCE_CREATED);
  const memory = new ContainerMemory(true);
  const handlers = (push: () => Promise<unknown>) => ({
    retry: push,
    'accept-restarts': async () => memory.acceptRestarts(),
  });

  const touches = EDGE_FLIP_KIND.locks(input);
  /** The predecessor's containers that served at preflight: what restart-predecessor must find to start. */
  let predecessorServedBy: string[] = [];
  return openRunbook(EDGE_FLIP, { ...input, touches, raw: rawInput }, async (rb) => {
    predecessorServedBy = await rb.step(PREFLIGHT, () => preflight(input, predecessorAnswers));

    rb.undo('unassign-successor', () => removeSuccessor());
    await rb.step('assign-successor', () => act.assignModule({ module, node }));

    let receipt = await pushNode(rb, node);
    let took = false;
    const repush = async () => (receipt = await pushNode(rb, node));
    // A gate waiting over the successor's containers watches them: fixed or changed, it looks again.
    const successorChange = () => containersChange(node, module, memory);
    const watched = { watch: successorChange };
    await rb.gate(
      GATE_APPLY,
      () => judgePush({ node, module }, receipt, timings, { memory }),
      {
        ...handlers(repush),
        take: async () => {
          await rb.step('take', () => act.takeModule({ module, node }));
          took = true;
          await repush();
        },
      },
      watched,
    );
    if (!took) rb.skip('take', 'nothing held for the successor');

    await rb.gate(
      'verify-successor',
      verifySuccessor,
      handlers(async () => undefined),
      watched,
    );
    await rb.gate('probe-successor', probeSuccessor, {});

    const approvalReason = `${module} is verified on ${node} and answers ${input.publicNames.join(', ')}; approve checks it once more and stops ${predecessor} (restarted if anything fails after), abort unassigns ${module}.`;
    const recheckSuccessor = (changed?: string) =>
      rb.gate(
        'recheck-successor',
        successorNow,
        { 'accept-restarts': async () => memory.acceptRestarts() },
        { ...(changed !== undefined ? { changed } : {}), watch: successorChange },
      );
    deprecatePatch(APPROVAL_WATCHES_SUCCESSOR);
    // A fleet's approval stands for this node's when its gates were ok at first look; it checks once more.
    const { fleetApproval } = input;
    const byFleet =
      fleetApproval !== undefined &&
      rb.approvedByFleet('approve-stop-predecessor', fleetApproval, FIRST_LOOK_GATES);
    const approvedByFleet = byFleet === true && !(await recheckSuccessor());
    const reason = typeof byFleet === 'object' ? `${byFleet.expired} ${approvalReason}` : approvalReason;
    // The successor is watched while the approval waits: a change ends the ask, and it is asked anew;
    // changes that keep coming are looked at less and less often (REASKS_BACK_OFF).
    if (!approvedByFleet)
      for (let changes = 0; ;) {
        const facts = watchedAgainFact(changes);
        const answer = await rb.approveWatching(
          'approve-stop-predecessor',
          reason,
          reaskedWatch(changes, successorChange),
          facts.length > 0 ? { facts } : {},
        );
        const changed = 'changed' in answer ? answer.changed : undefined;
        if (changed !== undefined) changes += 1;
        if (!(await recheckSuccessor(changed)) && changed === undefined) break;
      }

    rb.undo('restart-predecessor', restartPredecessor);
    await rb.step(
      'stop-predecessor',
      () => act.stopModuleContainers({ node, module: predecessor }),
      (r) => `stopped ${r.stopped.join(', ')}`,
    );

    await rb.step(
      'probe-public',
      async () => {
        const bindWithinMs = patched(PUBLIC_BIND_WINDOW) ? timings.publicBindMs : undefined;
        const served = await probeUntilServed({ ...onPublic, marker: input.successorMarker }, timings, {
          bindWithinMs,
        });
        if (!served.ok) throw rollBack(`after stopping ${predecessor}, ${served.summary}`);
        return served;
      },
      (served) => served.summary,
    );

    rb.undo(
      'reassign-predecessor',
      async () => void (await undoAct.assignModule({ module: predecessor, node })),
    );
    await rb.step('unassign-predecessor', () => act.unassignModule({ module: predecessor, node }));
    let cleanPush = await pushNode(rb, node);
    await rb.gate(
      'gate-clean',
      noPredecessorLeft,
      handlers(async () => (cleanPush = await pushNode(rb, node))),
      watched,
    );

    return rb.done(
      `${module} serves ${input.publicNames.join(', ')} on ${node}; ${predecessor} is stopped and unassigned`,
    );

    async function verifySuccessor(): Promise<Look> {
      const look = await judgePush({ node, module }, receipt, timings, { settled: true, memory });
      return look.ok ? { ok: true, note: `containers of ${module} running, healthy and stable` } : look;
    }

    /** The successor as it is now: its containers judged against their first sighting, then the probe. */
    async function successorNow(): Promise<Look> {
      const containers = await verifySuccessor();
      if (!containers.ok) return containers;
      const probed = await probeSuccessor();
      return probed.ok ? { ok: true, note: `${containers.note}; ${probed.note}` } : probed;
    }

    function predecessorLeft(): Promise<string[]> {
      return act.runningModuleContainers({ node, module: predecessor });
    }

    /** The clean push judged, and the predecessor's running containers looked at once its report is in. */
    async function judgeWithPredecessorLeft(): Promise<[Look, string[]]> {
      deprecatePatch(PARALLEL_READS);
      let reported = (): void => undefined;
      const report = new Promise<void>((resolve) => (reported = resolve));
      return Promise.all([
        judgePush({ node, module }, cleanPush, timings, { settled: true, memory, onReport: reported }),
        report.then(predecessorLeft),
      ]);
    }

    async function noPredecessorLeft(): Promise<Look> {
      const [look, left] = await judgeWithPredecessorLeft();
      if (!look.ok) return look;
      if (left.length === 0) return { ok: true, note: `${look.note}; no container of ${predecessor} runs` };
      const why = `${predecessor} is unassigned but ${left.join(', ')} still run on ${node}`;
      return {
        ok: false,
        note: why,
        verdict: 'failed',
        reason: `${why}; retry pushes again, abort reassigns ${predecessor} and restarts it.`,
        actions: ['retry', 'recheck', 'abort'],
        facts: [look.note, ...left.map((name) => `container ${name} of ${predecessor} still runs`)],
      };
    }
  });

  async function probeSuccessor(): Promise<Look> {
    const outcome = await probeUntilServed(successor, timings);
    if (outcome.ok) return { ok: true, note: outcome.summary };
    return {
      ok: false,
      note: outcome.summary,
      verdict: 'failed',
      reason: `The successor does not serve every public name yet: ${outcome.summary}; recheck probes again, abort unassigns ${module}.`,
      actions: ['recheck', 'abort'],
      facts: [outcome.summary],
    };
  }

  /**
   * Takes the successor off the node and judges that push; throws (the undo waits) when it is not clean.
   * Resolves to what it left alone on the node (other modules' holds), when anything.
   */
  async function removeSuccessor(): Promise<string | undefined> {
    await undoAct.unassignModule({ module, node });
    const removal = await judgeRemoval({ node, module }, await undoAct.pushNode({ node }), timings, [
      module,
      predecessor,
    ]);
    if (!removal.ok) throw ApplicationFailure.nonRetryable(removal.reason);
    return removal.note;
  }

  /**
   * The predecessor's containers found first (PREDECESSOR_BEFORE_SUCCESSOR), then the names lit before
   * anything waits on mesh (lightTheEdgeFirst). The probe wants the predecessor's own answer, never the
   * successor's.
   */
  async function restartPredecessor(): Promise<string | undefined> {
    if (patched(PREDECESSOR_BEFORE_SUCCESSOR))
      await predecessorToStart(input, predecessorServedBy, { ...onPublic, marker: input.successorMarker });
    deprecatePatch(LIGHT_THE_EDGE_FIRST);
    return lightTheEdgeFirst(input, predecessorAnswers, removeSuccessor);
  }
}

/**
 * Before anything of the successor is stopped, the predecessor's containers that served at preflight must be
 * on the node, able to start (read on the node's own engine, each time this undo runs). Removed by the clean
 * push (an abort after unassign-predecessor, which reassign-predecessor undid), they come back with a push
 * beside the successor, which that push leaves serving. Still gone (the controller does not answer, or the
 * node holds them): nothing of the successor is stopped or taken off, and the step fails saying so.
 */
async function predecessorToStart(
  input: EdgeFlipInput,
  servedBy: readonly string[],
  successorAnswers: ProbeTarget,
): Promise<void> {
  const { node, module, predecessor, timings } = input;
  const missing = async () => {
    const present = await undoAct.moduleContainerStates({ node, module: predecessor });
    const startable = present.filter((c) => c.state !== 'dead' && c.state !== 'removing').map((c) => c.name);
    return servedBy.filter((name) => !startable.includes(name));
  };
  if ((await missing()).length === 0) return;
  const pushed = await undoAct.pushNode({ node }).then(
    async (receipt) => {
      if (receipt.readable)
        await undoAct.collectApplyEvidence({
          node,
          pushId: receipt.value.pushId,
          timeoutMs: timings.applyReportMs,
        });
      return `a push did not bring ${predecessor} back`;
    },
    (error: unknown) => `a push to bring ${predecessor} back failed (${failureMessage(error)})`,
  );
  const gone = await missing();
  if (gone.length === 0) return;
  const answers = await probeOnce(successorAnswers);
  const serving = answers.ok
    ? `it serves: ${answers.summary}`
    : `it does not serve either: ${answers.summary}`;
  throw ApplicationFailure.nonRetryable(
    `${predecessor} cannot be started on ${node}: ${gone.join(', ')} ${gone.length === 1 ? 'is' : 'are'} gone and ${pushed}; ${module} is left as it is, nothing of it stopped or taken off (${serving}); ${predecessor} must be assigned and its containers back on ${node} before this step stops ${module}`,
  );
}

/**
 * The names are dark: the predecessor serves again before anything waits on mesh. The successor's containers
 * are stopped on the node (a second each: it failed to serve, it need not finish anything), the predecessor
 * started and probed for its own answer; then the successor is taken off through mesh, which may retry for
 * minutes while the controller is down, with the names lit meanwhile. A predecessor whose containers a clean
 * push removed already (an abort after unassign-predecessor) can only come back through that push, so it
 * is started and probed after it. Each part runs whatever the one before did.
 */
async function lightTheEdgeFirst(
  input: EdgeFlipInput,
  predecessorAnswers: ProbeTarget,
  takeOff: () => Promise<string | undefined>,
): Promise<string | undefined> {
  const { node, module, predecessor, timings } = input;
  const problems: string[] = [];
  const startPredecessor = () => undoAct.startModuleContainers({ node, module: predecessor });
  await undoAct
    .stopModuleContainers({ node, module, stopTimeoutSeconds: 1 })
    .catch((e: unknown) => problems.push(`${module}'s containers did not stop (${failureMessage(e)})`));
  let gone = false;
  await startPredecessor().catch((e: unknown) => {
    if (failedWith(e, FAILURE.containersGone)) gone = true;
    else problems.push(failureMessage(e));
  });
  let served = gone ? undefined : await probeUntilServed(predecessorAnswers, timings);
  const note = await takeOff().catch((e: unknown) => {
    problems.push(`the successor did not come off cleanly (${failureMessage(e)})`);
    return undefined;
  });
  if (gone) {
    await startPredecessor().catch((e: unknown) => problems.push(failureMessage(e)));
    served = await probeUntilServed(predecessorAnswers, timings);
  }
  if (served && !served.ok) problems.push(`${predecessor} does not answer: ${served.summary}`);
  if (problems.length > 0)
    throw ApplicationFailure.nonRetryable(`${predecessor} restart: ${problems.join('; ')}`);
  return note;
}

/**
 * The node as the flip needs it: the predecessor runs, the successor does not, and the public names are
 * answered by the predecessor itself (its marker, not the successor's, from this node): the answer the
 * rollback probe will want, known good before anything changes. Resolves to the predecessor's running
 * containers: what restart-predecessor must find on the node before it stops anything.
 */
async function preflight(input: EdgeFlipInput, predecessorAnswers: ProbeTarget): Promise<string[]> {
  const { node, module, predecessor } = input;
  deprecatePatch(NODE_HOSTS);
  await recordNodeHosts([node]);
  deprecatePatch(PARALLEL_READS);
  const [running, successorRunning, answers] = await Promise.all([
    act.runningModuleContainers({ node, module: predecessor }),
    act.runningModuleContainers({ node, module }),
    probeOnce(predecessorAnswers),
  ]);
  refuseUnlessPredecessorRuns(input, running);
  refuseWhenSuccessorRuns(input, successorRunning);
  refuseUnlessServed(answers);
  return running;
}

function refuseUnlessPredecessorRuns({ node, predecessor }: EdgeFlipInput, running: string[]): void {
  if (running.length === 0) throw refuse(`predecessor ${predecessor} has no running container on ${node}`);
}

function refuseWhenSuccessorRuns({ node, module }: EdgeFlipInput, running: string[]): void {
  if (running.length > 0)
    throw refuse(`successor ${module} is already running on ${node}: ${running.join(', ')}`);
}

function refuseUnlessServed(served: { ok: boolean; summary: string }): void {
  if (!served.ok) throw refuse(`the predecessor does not serve the public names now: ${served.summary}`);
}
