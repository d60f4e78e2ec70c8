import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { WorkflowHandle } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { decideUpdate, statusQuery, type Decision } from '../../workflows/contracts';
import { edgeFlip } from '../../workflows';
import { RunbookPolicy } from '../../workflows/policy';
import { seedEdgeFlip } from '../support/edge-flip-seed';
import { runbookWorld } from '../support/runbook-world';
import { decide, decisionRefusal, statusWhen, waitingAt } from '../support/runbooks';

const FOUR_EYES =
  'alice started this runbook and may not also approve approve-stop-predecessor (four eyes); ask another operator.';
const NOT_LISTED = 'mallory may not decide at approve-stop-predecessor; the policy allows alice, bob.';

describe('decisions carry who and what they saw: evidence hash and approver policy (real Temporal, real Docker)', () => {
  const policy = RunbookPolicy.parse({ approvers: { 'approve-stop-predecessor': ['alice', 'bob'] } });

  it('a stale evidence hash is refused with what changed; refusals are recorded; the fresh one is accepted', async () => {
    await using world = await runbookWorld({ deps: { policy } });
    const handle = await world.start(edgeFlip, await seedEdgeFlip(world, { leftovers: true }));
    const held = await statusWhen(handle, waitingAt('gate-apply'));
    const heldEvidence = held.waiting?.evidence ?? '';
    assert.match(heldEvidence, /^[0-9a-f]{10}$/);
    assert.ok(held.waiting?.facts.some((fact) => fact.startsWith('held route-proxy/')));

    const missing = await decisionRefusal(
      handle.executeUpdate(decideUpdate, { args: [{ action: 'take', by: 'alice' }] }),
    );
    assert.equal(
      missing,
      `The decision carries no evidence hash; look at the gate (mesh runbook status) and send its evidence ${heldEvidence}.`,
    );
    await decide(handle, 'take', undefined, 'alice');

    const approval = await statusWhen(handle, waitingAt('approve-stop-predecessor'));
    const stale = await decisionRefusal(
      handle.executeUpdate(decideUpdate, {
        args: [{ action: 'approve', by: 'bob', evidence: heldEvidence }],
      }),
    );
    assert.match(
      stale,
      new RegExp(
        `^Evidence ${heldEvidence} is stale: it was shown at gate gate-apply \\(held: .+\\); the runbook now waits at approve-stop-predecessor \\(approval\\)\\. Look again and decide on evidence ${approval.waiting?.evidence}\\.$`,
      ),
    );
    const unknown = await decisionRefusal(
      handle.executeUpdate(decideUpdate, {
        args: [{ action: 'approve', by: 'bob', evidence: '0000000000' }],
      }),
    );
    assert.match(unknown, /^Evidence 0000000000 is stale: this runbook never showed that evidence\./);

    await decide(handle, 'approve', undefined, 'bob');
    const done = await statusWhen(handle, (s) => s.phase === 'completed');
    assert.deepEqual(
      done.refused.map((r) => [r.gate, r.action, r.by, r.evidence]),
      [
        ['gate-apply', 'take', 'alice', undefined],
        ['approve-stop-predecessor', 'approve', 'bob', heldEvidence],
        ['approve-stop-predecessor', 'approve', 'bob', '0000000000'],
      ],
    );
    assert.deepEqual(
      done.decisions.map((d) => [d.gate, d.action, d.by]),
      [
        ['gate-apply', 'take', 'alice'],
        ['approve-stop-predecessor', 'approve', 'bob'],
      ],
    );
  });

  it('four eyes: the initiator may take (not destructive) but not approve the stop; the approver list is enforced', async () => {
    await using world = await runbookWorld({ deps: { policy } });
    const handle = await world.start(
      edgeFlip,
      await seedEdgeFlip(world, { leftovers: true, startedBy: 'alice' }),
    );
    await statusWhen(handle, waitingAt('gate-apply'));
    await decide(handle, 'take', undefined, 'alice');
    await statusWhen(handle, waitingAt('approve-stop-predecessor'));

    assert.equal(await decisionRefusal(decide(handle, 'approve', undefined, 'alice')), FOUR_EYES);
    assert.equal(await decisionRefusal(decide(handle, 'approve', undefined, 'mallory')), NOT_LISTED);
    const stillWaiting = await handle.query(statusQuery);
    assert.equal(stillWaiting.waiting?.gate, 'approve-stop-predecessor');
    assert.deepEqual(
      stillWaiting.refused.map((r) => [r.by, r.refusal]),
      [
        ['alice', FOUR_EYES],
        ['mallory', NOT_LISTED],
      ],
    );

    await decide(handle, 'approve', undefined, 'bob');
    const done = await statusWhen(handle, (s) => s.phase === 'completed');
    assert.equal(done.decisions.at(-1)?.by, 'bob');

    const attempts = await decisionsInHistory(handle);
    assert.deepEqual(
      attempts.filter((a) => a.gate === undefined).map((a) => [a.by, a.action, a.failure]),
      [
        ['alice', 'take', undefined],
        ['alice', 'approve', FOUR_EYES],
        ['mallory', 'approve', NOT_LISTED],
        ['bob', 'approve', undefined],
      ],
    );
  });
});

/** Every decision the history holds (accepted Updates), with the failure its handler answered, if any. */
async function decisionsInHistory(handle: WorkflowHandle) {
  const events = (await handle.fetchHistory()).events ?? [];
  const failures = new Map<string, string>();
  for (const event of events) {
    const completed = event.workflowExecutionUpdateCompletedEventAttributes;
    const failure = completed?.outcome?.failure?.message;
    if (completed?.meta?.updateId && failure) failures.set(completed.meta.updateId, failure);
  }
  return events.flatMap((event) => {
    const request = event.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest;
    const payload = request?.input?.args?.payloads?.[0];
    if (!request || !payload) return [];
    const decision = defaultPayloadConverter.fromPayload<Decision>(payload);
    return [{ ...decision, failure: failures.get(request.meta?.updateId ?? '') }];
  });
}
