import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { describe, it } from 'node:test';
import { leftBehindLines, resetCommand } from '../../cli/runbook/demo/left-behind';
import { DEMO_STATE_DIR } from '../../cli/runbook/demo/settings';

describe('what a demo says it leaves behind', () => {
  it('names the running and stopped containers by node, where its state stays, and the command that removes them', () => {
    assert.deepEqual(
      leftBehindLines('/tmp/my demo', [
        { node: 'forge1', name: 'forge1.forge.web', state: 'running' },
        { node: 'novox', name: 'novox.caddy.edge', state: 'exited' },
      ]),
      [
        'left behind on the local Docker engine: 1 running container(s) of forge1, novox (forge1.forge.web), and 1 stopped (novox.caddy.edge)',
        'the dev server and worker have stopped; the server database and the local mesh stay in /tmp/my demo',
        "remove them all with `mesh runbook demo --reset --state-dir '/tmp/my demo'`",
      ],
    );
    assert.equal(leftBehindLines(resolve(DEMO_STATE_DIR), [])[0], 'left behind: no container');
    assert.equal(resetCommand(resolve(DEMO_STATE_DIR)), 'mesh runbook demo --reset');
  });
});
