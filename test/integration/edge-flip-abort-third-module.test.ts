import assert from 'node:assert/strict';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { describe, it } from 'node:test';
import { hostPathOnNode } from '../../docker/placement';
import { edgeFlip } from '../../workflows';
import { seedEdgeFlip } from '../support/edge-flip-seed';
import { runbookWorld } from '../support/runbook-world';
import {
  closedFailing,
  decide,
  httpBody,
  moduleContainers,
  statusWhen,
  stepState,
  waitingAt,
} from '../support/runbooks';

const LEDGER_DATA = '/srv/ledger';

describe('an abort finishes on a node where a third module is held (real Temporal, real Docker)', () => {
  it('the undo judges only the successor: aborted, route-proxy gone, caddy serving, ledger’s hold named and left alone', async () => {
    await using world = await runbookWorld();
    const input = await seedEdgeFlip(world);
    const { node } = input;
    // ledger: assigned to the adopted node, whose data was there before mesh: held until someone takes it.
    await world.mesh.defineModule({
      module: 'ledger',
      dataDirs: [LEDGER_DATA],
      containers: [
        {
          name: 'db',
          image: 'mesh-local/busybox:latest',
          command: ['sleep', '1000000'],
          mounts: [{ hostPath: LEDGER_DATA, containerPath: '/data' }],
        },
      ],
    });
    const { hostRoot } = await world.mesh.nodeState(node);
    const ledgerDir = hostPathOnNode(hostRoot, LEDGER_DATA);
    await mkdir(ledgerDir, { recursive: true });
    await writeFile(`${ledgerDir}/journal`, 'somebody else’s data\n');
    await world.mesh.assign('ledger', node);

    const handle = await world.start(edgeFlip, input);
    const held = await statusWhen(handle, waitingAt('gate-apply'), 120_000);
    assert.equal(held.waiting?.verdict, 'held', held.waiting?.reason);
    assert.match(held.waiting?.reason ?? '', /ledger/);

    await decide(handle, 'abort', 'gate-apply');
    const ended = await statusWhen(
      handle,
      (s) => s.phase !== 'running' || s.waiting?.gate === 'unassign-successor',
      120_000,
    );
    assert.equal(ended.waiting, null, `the undo waits: ${ended.waiting?.reason ?? ''}`);
    const { status } = await closedFailing(handle);
    assert.equal(status.phase, 'aborted', status.outcome);
    assert.equal(stepState(status, 'unassign-successor'), 'compensated');
    const undo = status.steps.find((s) => s.name === 'unassign-successor');
    assert.match(
      undo?.note ?? '',
      new RegExp(
        `route-proxy is off; left alone, not this runbook's: ledger/dir:${LEDGER_DATA} of ledger held`,
      ),
    );
    assert.deepEqual(await moduleContainers(world.engine, node, 'route-proxy'), []);
    assert.match(await httpBody(input.publicAddress), /served by caddy/);
    const after = await world.mesh.nodeState(node);
    assert.ok(
      after.assigned.includes('ledger') && !after.assigned.includes('route-proxy'),
      after.assigned.join(),
    );
    assert.deepEqual(await readdir(ledgerDir), ['journal'], 'ledger’s data untouched');
  });
});
