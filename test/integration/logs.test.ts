import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { edgeFlip } from '../../workflows';
import { runbookWorkflowId } from '../../workflows/contracts';
import { runtimeLogging } from '../../worker/log-bridge';
import { meshLogger } from '../../worker/logging';
import { seedEdgeFlip } from '../support/edge-flip-seed';
import { runbookWorld, type RunbookWorld } from '../support/runbook-world';
import { decide, statusWhen, waitingAt } from '../support/runbooks';
import { installRuntime } from '../support/temporal';

type Line = Record<string, unknown>;

/** Everything the worker's pino root writes, as production's stderr would get it. */
class CapturedLog extends Writable {
  text = '';
  override _write(chunk: Buffer, _encoding: string, done: () => void): void {
    this.text += chunk.toString();
    done();
  }
  lines(): Line[] {
    return this.text
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => {
        try {
          return JSON.parse(line) as Line;
        } catch {
          return assert.fail(`not a JSON log line: ${line}`);
        }
      });
  }
}

describe('worker logs: pino JSON with the runbook context, on a real worker and dev server', () => {
  const captured = new CapturedLog();
  let world: RunbookWorld | undefined;
  let node = '';

  before(async () => {
    installRuntime(runtimeLogging(meshLogger({ level: 'DEBUG', format: 'json' }, captured), 'DEBUG'));
    world = await runbookWorld();
    const input = await seedEdgeFlip(world);
    node = input.node;
    const handle = await world.start(edgeFlip, input);
    await statusWhen(handle, waitingAt('approve-stop-predecessor'));
    await decide(handle, 'approve', 'approve-stop-predecessor');
    assert.equal((await handle.result()).phase, 'completed');
    await world.stopWorkers(); // flushes the runtime's log buffer
  });

  after(() => world?.[Symbol.asyncDispose]());

  const runbookLines = () =>
    captured.lines().filter((line) => [line.runbookId, line.workflowId].includes(runbookWorkflowId(node)));

  it('every line about the runbook has its runbook id; every activity line its node, module and step', () => {
    const lines = runbookLines();
    for (const line of lines) assert.equal(line.runbookId, runbookWorkflowId(node), JSON.stringify(line));
    const activityLines = lines.filter((line) => line.activityType !== undefined);
    for (const line of activityLines) {
      assert.equal(line.node, node, JSON.stringify(line));
      assert.equal(line.module, 'route-proxy', JSON.stringify(line));
    }
    // The policy is read as the runbook opens, before its first step (workflows/runbook/open.ts).
    const firstInStep = activityLines.findIndex((line) => line.step !== undefined);
    for (const line of activityLines.slice(0, firstInStep))
      assert.equal(line.activityType, 'runbookPolicy', JSON.stringify(line));
    for (const line of activityLines.slice(firstInStep))
      assert.equal(typeof line.step, 'string', JSON.stringify(line));
    const steps = new Set(activityLines.map((line) => line.step));
    for (const step of ['preflight', 'push', 'gate-apply', 'stop-predecessor'])
      assert.ok(steps.has(step), `no activity line for step ${step}: ${[...steps].join(', ')}`);
    const started = activityLines.filter((line) => line.msg === 'Activity started');
    const completed = activityLines.filter((line) => line.msg === 'Activity completed');
    assert.ok(completed.length >= 8, `only ${completed.length} activities completed`);
    // The approval's watch of the successor is cancelled once it is decided.
    const ended = activityLines.filter((line) =>
      ['Activity completed', 'Activity completed as cancelled', 'Activity failed'].includes(String(line.msg)),
    );
    assert.equal(started.length, ended.length, 'one "Activity started" per activity, with its context');
  });

  it("the Rust core's own lines arrive through the same pino logger", () => {
    const core = captured.lines().filter((line) => line.sdkComponent === 'core');
    assert.ok(core.length > 0, 'no core line');
    for (const line of core) assert.equal(line.name, 'mesh-worker');
  });
});
