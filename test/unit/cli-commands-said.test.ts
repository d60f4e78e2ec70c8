import assert from 'node:assert/strict';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { shellWord } from '../../cli/output';
import { resumeCommand } from '../../cli/runbook/demo/run';
import { DEMO_STATE_DIR, DemoSettings } from '../../cli/runbook/demo/settings';
import { devAgainCommand, DEV_STATE_DIR } from '../../cli/runbook/worker/dev-usage';
import { closest } from '../../cli/unknown-command';
import { TASK_QUEUE } from '../../workflows/contracts';

const RUNBOOK_VERBS = ['start', 'watch', 'status', 'history', 'list', 'approve', 'decide', 'abort', 'worker'];

describe('commands the CLI tells the operator to run', () => {
  it('quotes a shell word only when the shell would split or expand it', () => {
    assert.equal(shellWord('/tmp/mesh-demo-x1'), '/tmp/mesh-demo-x1');
    assert.equal(shellWord('/tmp/my demo'), "'/tmp/my demo'");
    assert.equal(shellWord("it's"), "'it'\\''s'");
    assert.equal(shellWord('$HOME'), "'$HOME'");
  });

  it('names a plain `mesh runbook dev` only for the default state, task queue and local mesh', () => {
    const home = resolve(DEV_STATE_DIR);
    assert.equal(devAgainCommand(home, join(home, 'local'), TASK_QUEUE), 'mesh runbook dev');
    assert.equal(
      devAgainCommand('/tmp/dev two', '/srv/mesh', 'mesh-runbook-demo'),
      "MESH_TASK_QUEUE=mesh-runbook-demo MESH_LOCAL_STATE=/srv/mesh mesh runbook dev --state-dir '/tmp/dev two'",
    );
  });

  it('resumes a demo on its own state dir and ports, naming only what is not the default', () => {
    const settings = DemoSettings.parse({});
    assert.equal(resumeCommand(resolve(DEMO_STATE_DIR), settings), 'mesh runbook demo --resume');
    assert.equal(
      resumeCommand('/tmp/h-demo', DemoSettings.parse({ port: '7300', uiPort: '8300' })),
      'mesh runbook demo --resume --state-dir /tmp/h-demo --port 7300 --ui-port 8300',
    );
  });

  it('guesses the command a typo meant only when one is nearest, within two edits', () => {
    assert.equal(closest('stauts', RUNBOOK_VERBS), 'status');
    assert.equal(closest('wacth', RUNBOOK_VERBS), 'watch');
    assert.equal(closest('lst', RUNBOOK_VERBS), 'list');
    assert.equal(closest('plna', RUNBOOK_VERBS), undefined);
    assert.equal(closest('plna', [...RUNBOOK_VERBS, 'plan']), 'plan');
    assert.equal(closest('sta', ['stat', 'star']), undefined, 'a tie is no guess');
  });
});
