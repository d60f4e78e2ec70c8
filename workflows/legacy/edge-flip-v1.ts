import { ApplicationFailure } from '@temporalio/workflow';
import type { EdgeFlipInput, RunbookStatus } from '../contracts';
import { act } from '../runbook/activities';
import { refuse, rollBack } from '../runbook/failures';
import { judgePush } from './judge-push-v1';
import { openRunbook } from '../runbook/open';
import { definePlan } from '../runbook/plan';
import { probeOnce, probeUntilServed, type ProbeTarget } from './probe-v1';
import type { Look } from '../runbook/runbook';
import { applyGateStep, GATE_APPLY, PREFLIGHT, preflightStep, PUSH_STEP } from '../runbook/step-declarations';
import { pushNode } from '../runbook/shared-steps';

/** The plan as runbooks started before revision 2 ran it. */
export const EDGE_FLIP_V1 = definePlan({
  revision: 1,
  kind: 'edge-flip',
  purpose:
    "Replace a node's edge proxy with its successor, never stopping the old one before the new one is proven.",
  steps: [
    preflightStep('the predecessor runs and serves every public name; the successor does not run yet'),
    {
      name: 'assign-successor',
      kind: 'action',
      does: 'assign the successor module to the node',
      undo: { name: 'unassign-successor', does: 'unassign it, push, and collect the apply report' },
    },
    PUSH_STEP,
    applyGateStep("judge this push's apply report, the node's holds and the successor's containers", [
      'take',
      'retry',
      'recheck',
      'abort',
    ]),
    {
      name: 'take',
      kind: 'action',
      does: 'take the resources the node holds for the successor, then push again (only if the operator chose take)',
    },
    {
      name: 'verify-successor',
      kind: 'gate',
      does: 'successor containers running, healthy and stable (no restarts)',
      actions: ['retry', 'recheck', 'abort'],
    },
    {
      name: 'probe-successor',
      kind: 'gate',
      does: 'every public name answers from the successor with its marker',
      actions: ['recheck', 'abort'],
    },
    {
      name: 'approve-stop-predecessor',
      kind: 'approval',
      does: 'approval before the only destructive step',
      actions: ['approve', 'abort'],
      fourEyes: true,
    },
    {
      name: 'stop-predecessor',
      kind: 'action',
      does: "stop the predecessor's containers",
      undo: {
        name: 'restart-predecessor',
        does: 'take the successor off the node, restart the predecessor, probe the public names',
      },
    },
    {
      name: 'probe-public',
      kind: 'action',
      does: 'every public name answers from the successor on the public address; else roll back at once',
    },
  ],
});

/**
 * Frozen: how edge-flip ran before revision 2 (committed histories and runbooks in flight replay through it).
 * Change nothing here; change workflows/edge-flip.ts behind its patch instead.
 */
export async function edgeFlipV1(input: EdgeFlipInput): Promise<RunbookStatus> {
  const { node, module, predecessor, timings } = input;
  const publicNames = { names: input.publicNames, expectStatus: input.expectStatus };
  const onPublic: ProbeTarget = { ...publicNames, address: input.publicAddress };
  const successor: ProbeTarget = {
    ...publicNames,
    address: input.successorAddress,
    marker: input.successorMarker,
  };

  return openRunbook(EDGE_FLIP_V1, input, async (rb) => {
    await rb.step(PREFLIGHT, () => preflight(input));

    rb.undo('unassign-successor', unassignSuccessor);
    await rb.step('assign-successor', () => act.assignModule({ module, node }));

    let receipt = await pushNode(rb, node);
    let took = false;
    await rb.gate(GATE_APPLY, () => judgePush({ node, module }, receipt, timings), {
      retry: async () => (receipt = await pushNode(rb, node)),
      take: async () => {
        await rb.step('take', () => act.takeModule({ module, node }));
        took = true;
        receipt = await pushNode(rb, node);
      },
    });
    if (!took) rb.skip('take', 'nothing held for the successor');

    await rb.gate('verify-successor', verifySuccessor, { retry: async () => undefined });
    await rb.gate('probe-successor', probeSuccessor, {});

    await rb.approve(
      'approve-stop-predecessor',
      `${module} is verified on ${node} and answers ${input.publicNames.join(', ')}; approve stops ${predecessor} (restarted if anything fails after), abort unassigns ${module}.`,
    );

    rb.undo('restart-predecessor', restartPredecessor);
    await rb.step(
      'stop-predecessor',
      () => act.stopModuleContainers({ node, module: predecessor }),
      (r) => `stopped ${r.stopped.join(', ')}`,
    );

    await rb.step(
      'probe-public',
      async () => {
        const served = await probeUntilServed({ ...onPublic, marker: input.successorMarker }, timings);
        if (!served.ok) throw rollBack(`after stopping ${predecessor}, ${served.summary}`);
        return served;
      },
      (served) => served.summary,
    );
    return rb.done(`${module} serves ${input.publicNames.join(', ')} on ${node}; ${predecessor} is stopped`);

    async function verifySuccessor(): Promise<Look> {
      const look = await judgePush({ node, module }, receipt, timings, { settled: true });
      return look.ok ? { ok: true, note: `containers of ${module} running, healthy and stable` } : look;
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

  async function unassignSuccessor(): Promise<void> {
    await act.unassignModule({ module, node });
    const receipt = await act.pushNode({ node });
    if (receipt.readable)
      await act.collectApplyEvidence({
        node,
        pushId: receipt.value.pushId,
        timeoutMs: timings.applyReportMs,
      });
  }

  /**
   * Once the predecessor stopped, the successor may have taken the public ports: take it off the node first
   * (its push removes its containers), or the predecessor cannot bind them and the probe would hear the
   * successor. unassign-successor repeats it later, idempotently.
   */
  async function restartPredecessor(): Promise<void> {
    await unassignSuccessor();
    await act.startModuleContainers({ node, module: predecessor });
    const served = await probeUntilServed(onPublic, timings);
    if (!served.ok) throw ApplicationFailure.nonRetryable(`${predecessor} restarted but ${served.summary}`);
  }
}

async function preflight(input: EdgeFlipInput): Promise<string> {
  const { node, module, predecessor } = input;
  const predecessorRunning = await act.runningModuleContainers({ node, module: predecessor });
  if (predecessorRunning.length === 0)
    throw refuse(`predecessor ${predecessor} has no running container on ${node}`);
  const successorRunning = await act.runningModuleContainers({ node, module });
  if (successorRunning.length > 0)
    throw refuse(`successor ${module} is already running on ${node}: ${successorRunning.join(', ')}`);
  const served = await probeOnce({
    address: input.publicAddress,
    names: input.publicNames,
    expectStatus: input.expectStatus,
  });
  if (!served.ok) throw refuse(`the predecessor does not serve the public names now: ${served.summary}`);
  return `${predecessor} serves ${input.publicNames.length} name(s); ${module} not running`;
}
