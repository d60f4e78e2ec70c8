import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { LABEL } from '../../docker/labels';
import { MeshRefusedError } from '../../mesh/errors';
import { ReportTamperingMesh } from '../support/report-tampering-mesh';
import { successorSpec, type EdgeScenarioOptions } from '../../mesh/local/scenarios/edge-flip-incident';
import type { ApplyReport, ModuleSpecInput } from '../../mesh/schemas';
import { edgeFlip } from '../../workflows';
import { statusQuery, type EdgeFlipInputArg, type RunbookStatus } from '../../workflows/contracts';
import { portsOf, seedEdgeFlip, stagingOnlySuccessor } from '../support/edge-flip-seed';
import { runbookWorld, type RunbookWorld } from '../support/runbook-world';
import { describe } from '../support/side-by-side';
import {
  closedFailing,
  decide,
  httpBody,
  isRunning,
  moduleContainers,
  statusWhen,
  stepState,
  waitingAt,
} from '../support/runbooks';

/**
 * A node whose agent misreports: for the nodes listed in `omitted`, its apply reports (and its state's
 * last apply) leave out one resource it did apply, as if it had applied fewer than it was sent, and no
 * hold says why. Everything else is the real local mesh.
 */
class MisreportingMesh extends ReportTamperingMesh {
  readonly omitted = new Map<string, string>();

  protected tamper(report: ApplyReport): ApplyReport {
    const id = this.omitted.get(report.node);
    if (id === undefined || !report.appliedIds.includes(id)) return report;
    return {
      ...report,
      applied: report.applied - 1,
      appliedIds: report.appliedIds.filter((applied) => applied !== id),
    };
  }
}

/** The successor takes the public port once it is free but answers it wrongly (404: an empty site). */
function wrongPublicSuccessor(
  ports: Pick<EdgeScenarioOptions, 'publicPort' | 'stagingPort'>,
): ModuleSpecInput {
  const spec = successorSpec('route-proxy', ports);
  const serve = [
    'echo "served by route-proxy" > /www/index.html && mkdir -p /empty',
    `httpd -p 127.0.0.1:${ports.stagingPort} -h /www`,
    `until httpd -f -p 127.0.0.1:${ports.publicPort} -h /empty; do sleep 0.5; done`,
  ].join(' && ');
  return {
    ...spec,
    containers: spec.containers.map((c) => (c.name === 'edge' ? { ...c, command: ['sh', '-c', serve] } : c)),
  };
}

type World = RunbookWorld<MisreportingMesh>;

/** A world whose node agents misreport on the nodes a test names. */
const misreportingWorld = () => runbookWorld({ mesh: (stateDir) => new MisreportingMesh({ stateDir }) });

const runningSuccessor = async (world: World, node: string) =>
  (await world.engine.listByLabels({ [LABEL.node]: node, [LABEL.module]: 'route-proxy' }))
    .filter((c) => c.State === 'running')
    .map((c) => c.Names[0]);

/** Also refuses, for the modules listed, to unassign them: a controller that misbehaves during a rollback. */
class UnassignRefusingMesh extends MisreportingMesh {
  readonly refusing = new Set<string>();

  override async unassign(module: string, node: string): Promise<void> {
    if (this.refusing.has(module))
      throw new MeshRefusedError(`mesh will not unassign ${module} from ${node}`);
    return super.unassign(module, node);
  }
}

/** The input with a probe deadline short enough for a test that waits for the probes to give up. */
function quickToGiveUp(input: EdgeFlipInputArg): EdgeFlipInputArg {
  return { ...input, timings: { ...input.timings, probeDeadlineMs: 4_000 } };
}

const successorContainers = (world: World, node: string) =>
  moduleContainers(world.engine, node, 'route-proxy');

/** Stopped short of the predecessor: nothing after the gate ran, the predecessor still serves. */
async function assertPredecessorUntouched(world: World, input: EdgeFlipInputArg, status: RunbookStatus) {
  for (const later of ['verify-successor', 'approve-stop-predecessor', 'stop-predecessor', 'probe-public'])
    assert.equal(stepState(status, later), 'pending', `${later} never reached`);
  assert.equal(await isRunning(world.engine, `${input.node}.caddy.edge`), true, 'predecessor still running');
  assert.match(await httpBody(input.publicAddress), /served by caddy/);
}

/** Aborts at the current gate; the runbook unassigns the successor and ends aborted. */
async function abortAndCheck(world: World, input: EdgeFlipInputArg, handle: WorkflowHandle) {
  await decide(handle, 'abort');
  const { cause, status } = await closedFailing(handle);
  assert.ok(cause instanceof ApplicationFailure && cause.type === 'Aborted', String(cause));
  assert.equal(status.phase, 'aborted');
  assert.equal(stepState(status, 'unassign-successor'), 'compensated');
  assert.deepEqual(await successorContainers(world, input.node), [], 'successor containers removed');
  assert.equal(await isRunning(world.engine, `${input.node}.caddy.edge`), true);
  assert.match(await httpBody(input.publicAddress), /served by caddy/);
}

describe('edge-flip failure modes on a real Temporal dev server and the local mesh over real Docker', () => {
  it('a node that misreports its apply (applied < sent, no hold): waits at gate-apply with drift naming the resource', async () => {
    await using world = await misreportingWorld();
    const input = await seedEdgeFlip(world);
    world.mesh.omitted.set(input.node, 'route-proxy/container:ca');
    const handle = await world.start(edgeFlip, input);

    const drift = await statusWhen(handle, waitingAt('gate-apply'));
    assert.equal(drift.waiting?.verdict, 'drift');
    const reason = drift.waiting?.reason ?? '';
    const counts = /applied (\d+) of (\d+) sent resources/.exec(reason);
    assert.ok(counts, reason);
    assert.equal(Number(counts[1]), Number(counts[2]) - 1, reason);
    assert.match(
      reason,
      /1 missing resource is explained by no hold or failure \(route-proxy\/container:ca\)/,
    );
    // `recheck` joins them when the edge's health was still starting at that look.
    assert.deepEqual(
      drift.waiting?.actions.filter((a) => a !== 'recheck'),
      ['retry', 'abort'],
    );
    await assertPredecessorUntouched(world, input, drift);

    // Retry pushes again; the node misreports again, so the runbook waits again instead of moving on.
    await decide(handle, 'retry');
    const again = await statusWhen(handle, (s) => waitingAt('gate-apply')(s) && s.decisions.length === 1);
    assert.equal(again.waiting?.verdict, 'drift');
    assert.match(again.waiting?.reason ?? '', /route-proxy\/container:ca/);
    await assertPredecessorUntouched(world, input, again);

    await abortAndCheck(world, input, handle);
  });

  for (const fault of ['exits', 'unhealthy'] as const) {
    it(`a successor edge container that ${fault === 'exits' ? 'exits' : 'turns unhealthy'} never lets the predecessor stop`, async () => {
      await using world = await misreportingWorld();
      const input = await seedEdgeFlip(world, { successorFault: fault });
      const handle = await world.start(edgeFlip, input);

      const failed = await statusWhen(handle, waitingAt('gate-apply'));
      assert.equal(failed.waiting?.verdict, 'failed');
      const problem = fault === 'exits' ? 'has exited' : 'is unhealthy';
      assert.match(failed.waiting?.reason ?? '', new RegExp(`${input.node}\\.route-proxy\\.edge ${problem}`));
      assert.deepEqual(failed.waiting?.actions, ['retry', 'recheck', 'abort']);
      await assertPredecessorUntouched(world, input, failed);

      // A wait is a wait: a moment later it is still there, and still nothing was stopped.
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      const later = await handle.query(statusQuery);
      assert.equal(later.waiting?.gate, 'gate-apply');
      await assertPredecessorUntouched(world, input, later);

      await abortAndCheck(world, input, handle);
    });
  }

  it('a public name failing after the stop restarts the predecessor and ends rolled-back', async () => {
    await using world = await misreportingWorld();
    const input = await seedEdgeFlip(world);
    const { node } = input;
    await world.mesh.defineModule(stagingOnlySuccessor(portsOf(input)));
    const handle = await world.start(edgeFlip, quickToGiveUp(input));

    await statusWhen(handle, waitingAt('approve-stop-predecessor'));
    const predecessorStarted = (await world.engine.inspect(`${node}.caddy.edge`))?.State.StartedAt;
    await decide(handle, 'approve');

    const { cause, status } = await closedFailing(handle);
    assert.ok(cause instanceof ApplicationFailure, String(cause));
    assert.equal(cause.type, 'RolledBack');
    assert.match(cause.message, /after stopping caddy, 3 of 3 names failed .*; rolled back/);
    assert.equal(status.phase, 'rolled-back');
    assert.equal(stepState(status, 'stop-predecessor'), 'done');
    assert.equal(stepState(status, 'probe-public'), 'failed');
    assert.equal(stepState(status, 'restart-predecessor'), 'compensated');
    assert.equal(stepState(status, 'unassign-successor'), 'compensated');

    const predecessor = await world.engine.inspect(`${node}.caddy.edge`);
    assert.equal(predecessor?.State.Running, true, 'predecessor restarted');
    assert.notEqual(predecessor?.State.StartedAt, predecessorStarted, 'it was stopped, then started again');
    assert.match(await httpBody(input.publicAddress), /served by caddy/);
    assert.ok(!(await world.mesh.nodeState(node)).assigned.includes('route-proxy'), 'successor unassigned');
    assert.deepEqual(await successorContainers(world, node), [], 'successor containers removed');
  });

  it('mesh refusing to unassign the successor in the rollback does not keep the predecessor down: it is restarted and answers itself, and the undo waits saying what did not come off', async () => {
    await using world = await runbookWorld({ mesh: (stateDir) => new UnassignRefusingMesh({ stateDir }) });
    const input = await seedEdgeFlip(world);
    const { node } = input;
    await world.mesh.defineModule(stagingOnlySuccessor(portsOf(input)));
    const handle = await world.start(edgeFlip, quickToGiveUp(input));
    await statusWhen(handle, waitingAt('approve-stop-predecessor'));
    world.mesh.refusing.add('route-proxy');
    await decide(handle, 'approve');

    // The restart's parts run each on its own: the successor's containers stopped, the predecessor started and
    // probed for its own answer; the undo then waits, saying the successor did not come off.
    const stuck = await statusWhen(handle, waitingAt('restart-predecessor'));
    assert.deepEqual(stuck.waiting?.actions, ['retry', 'give-up']);
    assert.match(
      stuck.waiting?.reason ?? '',
      /the successor did not come off cleanly \(mesh will not unassign route-proxy/,
    );
    assert.equal(await isRunning(world.engine, `${node}.caddy.edge`), true, 'predecessor restarted');
    assert.match(await httpBody(input.publicAddress), /served by caddy/);
    assert.deepEqual(await runningSuccessor(world, node), [], "the successor's containers are stopped");

    world.mesh.refusing.delete('route-proxy');
    await decide(handle, 'retry', 'restart-predecessor');
    const { status } = await closedFailing(handle);
    assert.equal(status.phase, 'rolled-back', status.outcome);
    assert.equal(stepState(status, 'restart-predecessor'), 'compensated');
    assert.equal(stepState(status, 'unassign-successor'), 'compensated');
    assert.ok(!(await world.mesh.nodeState(node)).assigned.includes('route-proxy'), 'successor unassigned');
  });

  it('a successor that took the public port but answers wrongly is taken off the node before the predecessor restarts', async () => {
    await using world = await misreportingWorld();
    const input = await seedEdgeFlip(world);
    const { node } = input;
    await world.mesh.defineModule(wrongPublicSuccessor(portsOf(input)));
    const handle = await world.start(edgeFlip, quickToGiveUp(input));

    await statusWhen(handle, waitingAt('approve-stop-predecessor'));
    await decide(handle, 'approve');

    const { cause, status } = await closedFailing(handle);
    assert.ok(cause instanceof ApplicationFailure, String(cause));
    assert.equal(cause.type, 'RolledBack', `${cause.message}; status ${JSON.stringify(status.steps)}`);
    assert.match(cause.message, /after stopping caddy, 3 of 3 names failed .*status 404/);
    assert.equal(status.phase, 'rolled-back');
    assert.equal(stepState(status, 'restart-predecessor'), 'compensated');
    assert.equal(await isRunning(world.engine, `${node}.caddy.edge`), true, 'predecessor restarted');
    assert.match(await httpBody(input.publicAddress), /served by caddy/);
    assert.deepEqual(await successorContainers(world, node), [], 'successor containers removed');
  });
});
