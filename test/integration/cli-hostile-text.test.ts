import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startClearance } from '../../client/start-clearance';
import { isControl } from '../../base/printable';
import { clearNode, edgeFlip } from '../../workflows';
import { decideUpdate, type Decision } from '../../workflows/contracts';
import { seedEdgeFlip } from '../support/edge-flip-seed';
import { HostileReasonMesh } from '../support/hostile-reason-mesh';
import { meshRunbook, type CliOutcome } from '../support/mesh-cli';
import { runbookWorld } from '../support/runbook-world';
import { closedFailing, decisionRefusal, statusWhen, waitingAt } from '../support/runbooks';

/** Names and comments as someone else's Web UI or CLI may send them: terminal controls in each. */
const BY = 'mallory\u001b[2J\u001b[H';
const COMMENT = 'looks fine\r\u001b[31mapproved by root\u009b2J\u202eevil\nforged: approve at gate-apply';
const CLEAR_REASON = 'restarted caddy\u001b]0;pwned\u0007 by hand\r\u001b[1A';

/** Every character of the output that would act on the terminal (line breaks end lines and stay). */
function controls(outcome: CliOutcome): string[] {
  return [...outcome.stdout, ...outcome.stderr]
    .filter((ch) => ch !== '\n' && isControl(ch))
    .map((ch) => `U+${(ch.codePointAt(0) ?? 0).toString(16).padStart(4, '0')}`);
}

describe("text others typed reaches the operator's terminal escaped (real Temporal, real Docker, the CLI as a subprocess)", () => {
  it('decision comments, by names, refused attempts, clear reasons and node reasons print with their control characters shown, never sent', async () => {
    await using world = await runbookWorld({ mesh: (stateDir) => new HostileReasonMesh({ stateDir }) });
    const input = await seedEdgeFlip(world, { leftovers: true });
    const handle = await world.start(edgeFlip, input);
    const held = await statusWhen(handle, waitingAt('gate-apply'));
    assert.match(held.waiting?.reason ?? '', /not bold/);
    const cli = (...args: string[]) => meshRunbook(world, ...args);
    const node = input.node;
    const atHold = await cli('status', node);
    assert.equal(atHold.code, 3, atHold.stderr);
    assert.deepEqual(controls(atHold), [], `status sent the node's control characters:\n${atHold.stdout}`);
    assert.match(
      atHold.stdout,
      /<img src=x onerror="document.title=1"> `code` # \\u001b\[2J\\u001b\]0;pwned\\u0007 over\\u202eesrever\\u009b31m/,
    );
    const decision = (evidence: string): Decision => ({
      action: 'take',
      by: BY,
      identity: 'web-ui',
      evidence,
      comment: COMMENT,
    });
    await decisionRefusal(handle.executeUpdate(decideUpdate, { args: [decision('0000000000')] }));
    await handle.executeUpdate(decideUpdate, { args: [decision(held.waiting?.evidence ?? '')] });
    await statusWhen(handle, waitingAt('approve-stop-predecessor'));

    const shown: [string, CliOutcome][] = [
      ['status', await cli('status', node)],
      ['history', await cli('history', node)],
      ['list', await cli('list', '--node', node)],
      ['watch', await cli('watch', node)],
    ];
    for (const [verb, outcome] of shown) {
      assert.ok([0, 3].includes(outcome.code), `${verb}: ${outcome.stderr}`);
      assert.deepEqual(controls(outcome), [], `${verb} sent control characters:\n${outcome.stdout}`);
    }
    const [, status] = shown[0]!;
    assert.match(status.stdout, /by mallory\\u001b\[2J\\u001b\[H \(typed in the Web UI\)/);
    assert.match(
      status.stdout,
      /"looks fine \\u001b\[31mapproved by root\\u009b2J\\u202eevil forged: approve/,
    );
    assert.match(status.stdout, /refused attempts:\n {2}take at gate-apply by mallory\\u001b/);
    const [, history] = shown[1]!;
    assert.match(
      history.stdout,
      /take at gate-apply by mallory\\u001b\[2J\\u001b\[H \(typed in the Web UI\)/,
    );

    await handle.cancel();
    await closedFailing(handle);
    const clearance = await startClearance(
      world.client,
      clearNode,
      { node, by: BY, reason: CLEAR_REASON },
      { taskQueue: world.taskQueue },
    );
    await clearance.result();
    for (const [verb, outcome] of [
      ['history', await cli('history', node)],
      ['list', await cli('list', '--node', node)],
    ] as const) {
      assert.equal(outcome.code, 0, `${verb}: ${outcome.stderr}`);
      assert.deepEqual(
        controls(outcome),
        [],
        `${verb} of the clearance sent control characters:\n${outcome.stdout}`,
      );
      assert.match(outcome.stdout, /restarted caddy\\u001b\]0;pwned\\u0007 by hand/, verb);
    }
  });
});
