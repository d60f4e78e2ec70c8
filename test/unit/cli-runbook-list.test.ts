import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { listQuery } from '../../cli/runbook/list/query';
import { formatRows, rowOf } from '../../cli/runbook/list/list';
import type { RunInfo } from '../../client/temporal-reads/reads';
import { MESH_KIND, MESH_NODE, MESH_PHASE, MESH_WAITING_ON } from '../../workflows/search-attributes';

const RUNS =
  "(WorkflowType IN ('edgeFlip', 'dataPathMove', 'edgeFlipFleet', 'dataPathMoveFleet', 'clearNode') OR (WorkflowType = 'nodeMark' AND ExecutionStatus = 'Running'))";
const BASE = `${RUNS} AND TaskQueue = 'mesh-runbook'`;

function info(status: string, attributes: { node?: string; phase?: string; waitingOn?: string }): RunInfo {
  return {
    type: 'edgeFlip',
    workflowId: 'runbook-novox',
    runId: 'r1',
    taskQueue: 'mesh-runbook',
    status,
    startTime: new Date('2026-09-26T12:00:00.250Z'),
    searchAttributes: {
      ...(attributes.node ? { [MESH_NODE.name]: attributes.node } : {}),
      [MESH_KIND.name]: 'edge-flip',
      ...(attributes.phase ? { [MESH_PHASE.name]: attributes.phase } : {}),
      ...(attributes.waitingOn ? { [MESH_WAITING_ON.name]: attributes.waitingOn } : {}),
    },
  };
}

describe('runbook list (clearances of nodes among them)', () => {
  it('ANDs the filters into one visibility query on the runbooks search attributes', () => {
    assert.equal(listQuery('mesh-runbook', {}), BASE);
    assert.equal(
      listQuery('mesh-runbook', { node: 'novox', phase: 'waiting' }),
      `${BASE} AND MeshNode = 'novox' AND MeshPhase = 'waiting' AND ExecutionStatus = 'Running'`,
    );
    assert.equal(
      listQuery('mesh-runbook', { waiting: true }),
      `${BASE} AND MeshWaitingOn IS NOT NULL AND ExecutionStatus = 'Running'`,
    );
    assert.equal(listQuery('mesh-runbook', { phase: 'completed' }), `${BASE} AND MeshPhase = 'completed'`);
    assert.equal(
      listQuery('mesh-runbook', { phase: 'failed' }),
      `${BASE} AND (MeshPhase = 'failed' OR ExecutionStatus IN ('Terminated', 'TimedOut'))`,
    );
    assert.equal(
      listQuery("it's", { node: "a'b" }),
      `${RUNS} AND TaskQueue = 'it\\'s' AND MeshNode = 'a\\'b'`,
    );
  });

  it('reads node, phase and waiting gate from the search attributes; a run closed from outside is failed', () => {
    assert.deepEqual(rowOf(info('RUNNING', { node: 'novox', phase: 'waiting', waitingOn: 'gate-apply' })), {
      id: 'runbook-novox',
      kind: 'edge-flip',
      node: 'novox',
      type: 'edgeFlip',
      status: 'RUNNING',
      phase: 'waiting',
      waitingOn: 'gate-apply',
      startTime: '2026-09-26T12:00:00.250Z',
    });
    const terminated = rowOf(
      info('TERMINATED', { node: 'novox', phase: 'waiting', waitingOn: 'gate-apply' }),
    );
    assert.deepEqual([terminated.phase, terminated.waitingOn], ['failed', undefined]);
    assert.equal(rowOf(info('COMPLETED', { phase: 'completed' })).node, 'novox', 'node from the id');
  });

  it('prints a table with node, kind, phase and the gate each waits at', () => {
    const row = rowOf(info('RUNNING', { node: 'novox', phase: 'waiting', waitingOn: 'gate-apply' }));
    // eslint-disable-next-line no-control-regex
    const lines = formatRows([row]).map((line) => line.replace(/\u001b\[\d+m/g, ''));
    assert.deepEqual(lines, [
      'ID             KIND       NODE   PHASE    WAITING ON  STARTED               WHERE',
      'runbook-novox  edge-flip  novox  waiting  gate-apply  2026-09-26 12:00:00Z',
    ]);
  });
});
