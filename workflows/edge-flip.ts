import { ApplicationFailure } from '@temporalio/workflow';
import { EdgeFlipInput, FAILURE, parseInput, type EdgeFlipInputArg, type RunbookStatus } from './contracts';
import { act } from './runbook/activities';
import { applyGate } from './runbook/apply-gate';
import { finish } from './runbook/finish';
import { probeUntilServed } from './runbook/probe-gate';
import { openRunbook } from './runbook/open';
import { abortedBy } from './runbook/steps';

export const EDGE_FLIP_PLAN = [
  'preflight',
  'assign-successor',
  'push',
  'gate-apply',
  'take',
  'verify-successor',
  'probe-successor',
  'approve-stop-predecessor',
  'stop-predecessor',
  'probe-public',
] as const;

/** Replace a node's edge proxy with its successor, never stopping the old one before the new one is proven. */
export async function edgeFlip(rawInput: EdgeFlipInputArg): Promise<RunbookStatus> {
  const input = parseInput(EdgeFlipInput, rawInput);
  const { node, module, predecessor, timings } = input;
  const { progress, decisions, undo, ctx, run, push } = await openRunbook(
    { kind: 'edge-flip', node, module, startedBy: input.startedBy },
    EDGE_FLIP_PLAN,
  );
  const publicNames = { names: input.publicNames, expectStatus: input.expectStatus };

  try {
    await run('preflight', () => preflight(input));

    const unassignSuccessor = async () => {
      await act.unassignModule({ module, node });
      const receipt = await act.pushNode({ node });
      if (receipt.readable)
        await act.collectApplyEvidence({
          node,
          pushId: receipt.value.pushId,
          timeoutMs: timings.applyReportMs,
        });
    };
    undo.push('unassign-successor', unassignSuccessor);
    await run('assign-successor', () => act.assignModule({ module, node }));

    let tookOver = false;
    const receipt = await applyGate('gate-apply', { node, module }, await push(), timings, ctx, {
      retry: push,
      take: async () => {
        await run('take', () => act.takeModule({ module, node }));
        tookOver = true;
        return push();
      },
    });
    if (!tookOver) progress.mark('take', 'skipped', 'nothing held for the successor');

    const stable = { ...timings, healthDeadlineMs: 1 };
    await applyGate('verify-successor', { node, module }, receipt, stable, ctx, {
      retry: async () => receipt,
    });
    progress.mark('verify-successor', 'done', `containers of ${module} running, healthy and stable`);

    await gateProbe('probe-successor', {
      ...publicNames,
      address: input.successorAddress,
      marker: input.successorMarker,
    });

    const approval = await decisions.await({
      gate: 'approve-stop-predecessor',
      verdict: 'approval',
      reason: `${module} is verified on ${node} and answers ${input.publicNames.join(', ')}; approve stops ${predecessor} (restarted if anything fails after), abort unassigns ${module}.`,
      actions: ['approve', 'abort'],
    });
    if (approval.action === 'abort') throw abortedBy(approval.by, 'approve-stop-predecessor');
    progress.mark('approve-stop-predecessor', 'done', `approved by ${approval.by}`);

    undo.push('restart-predecessor', async () => {
      // Once the predecessor stopped, the successor may have taken the public ports: take it off the node
      // first (its push removes its containers), or the predecessor cannot bind them and the probe below
      // would hear the successor. unassign-successor repeats it later, idempotently.
      await unassignSuccessor();
      await act.startModuleContainers({ node, module: predecessor });
      const served = await probeUntilServed({ ...publicNames, address: input.publicAddress }, timings);
      if (!served.ok) throw ApplicationFailure.nonRetryable(`${predecessor} restarted but ${served.summary}`);
    });
    await run(
      'stop-predecessor',
      () => act.stopModuleContainers({ node, module: predecessor }),
      (r) => `stopped ${r.stopped.join(', ')}`,
    );

    progress.mark('probe-public', 'running');
    const served = await probeUntilServed(
      { ...publicNames, address: input.publicAddress, marker: input.successorMarker },
      timings,
    );
    if (!served.ok) {
      progress.mark('probe-public', 'failed', served.summary);
      throw ApplicationFailure.nonRetryable(
        `after stopping ${predecessor}, ${served.summary}`,
        FAILURE.verificationFailed,
      );
    }
    progress.mark('probe-public', 'done', served.summary);
    progress.end(
      'completed',
      `${module} serves ${input.publicNames.join(', ')} on ${node}; ${predecessor} is stopped`,
    );
    return progress.status;
  } catch (error) {
    throw await finish(error, progress, undo);
  }

  async function gateProbe(gate: string, target: Parameters<typeof probeUntilServed>[0]): Promise<void> {
    for (;;) {
      progress.mark(gate, 'running');
      const outcome = await probeUntilServed(target, timings);
      if (outcome.ok) return progress.mark(gate, 'done', outcome.summary);
      progress.mark(gate, 'waiting', outcome.summary);
      const reason = `The successor does not serve every public name yet: ${outcome.summary}; recheck probes again, abort unassigns ${module}.`;
      const decision = await decisions.await({
        gate,
        verdict: 'failed',
        reason,
        actions: ['recheck', 'abort'],
        facts: [outcome.summary],
      });
      if (decision.action === 'abort') throw abortedBy(decision.by, gate);
    }
  }
}

async function preflight(input: EdgeFlipInput): Promise<string> {
  const refuse = (why: string) => ApplicationFailure.nonRetryable(why, FAILURE.preflightFailed);
  const predecessorRunning = await act.runningModuleContainers({
    node: input.node,
    module: input.predecessor,
  });
  if (predecessorRunning.length === 0)
    throw refuse(`predecessor ${input.predecessor} has no running container on ${input.node}`);
  const successorRunning = await act.runningModuleContainers({ node: input.node, module: input.module });
  if (successorRunning.length > 0)
    throw refuse(
      `successor ${input.module} is already running on ${input.node}: ${successorRunning.join(', ')}`,
    );
  const served = await probeUntilServed(
    { address: input.publicAddress, names: input.publicNames, expectStatus: input.expectStatus },
    { ...input.timings, probeDeadlineMs: 1 },
  );
  if (!served.ok) throw refuse(`the predecessor does not serve the public names now: ${served.summary}`);
  return `${input.predecessor} serves ${input.publicNames.length} name(s); ${input.module} not running`;
}
