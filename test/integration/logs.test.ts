import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { dockerResolver } from '../../docker/endpoints';
import { DockerEngine } from '../../docker/engine';
import { LocalMesh } from '../../mesh/local';
import { runbookWorkflowId } from '../../workflows/contracts';
import { runtimeLogging } from '../../worker/log-bridge';
import { meshLogger } from '../../worker/logging';
import { seededEdgeFlipInput, startEdgeFlip } from '../support/edge-flip-start';
import { removeNodeContainers } from '../support/docker';
import { decide, statusWhen, waitingAt } from '../support/runbooks';
import { Scratch } from '../support/scratch';
import { installRuntime, startTestWorker, type TestWorker } from '../support/temporal';

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
  const scratch = new Scratch();
  const engine = new DockerEngine();
  const node = `t${randomBytes(3).toString('hex')}`;
  let worker: TestWorker | undefined;

  before(async () => {
    installRuntime(runtimeLogging(meshLogger({ level: 'DEBUG', format: 'json' }, captured), 'DEBUG'));
    const mesh = new LocalMesh({ stateDir: await scratch.dir() });
    const running = await startTestWorker({ mesh, dockerFor: dockerResolver({}) });
    worker = running;
    const input = await seededEdgeFlipInput(mesh, node);
    const handle = await startEdgeFlip(running.client, running.taskQueue, input);
    await statusWhen(handle, waitingAt('approve-stop-predecessor'));
    await decide(handle, 'approve', 'approve-stop-predecessor');
    assert.equal((await handle.result()).phase, 'completed');
    worker = undefined;
    await running.stop(); // flushes the runtime's log buffer
  });

  after(async () => {
    await worker?.stop();
    await removeNodeContainers([node], engine);
    await scratch.cleanup();
  });

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
    assert.equal(started.length, completed.length, 'one "Activity started" per activity, with its context');
  });

  it("the Rust core's own lines arrive through the same pino logger", () => {
    const core = captured.lines().filter((line) => line.sdkComponent === 'core');
    assert.ok(core.length > 0, 'no core line');
    for (const line of core) assert.equal(line.name, 'mesh-worker');
  });
});
