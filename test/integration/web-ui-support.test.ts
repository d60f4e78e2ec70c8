import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client, Connection, type WorkflowHandle } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { MESH_WAITING_ON, WAITING_QUERY } from '../../workflows/search-attributes';
import {
  RETRY_FAILURE_MESSAGE,
  UI_FIXTURE_DECIDED_PREFIX,
  UI_FIXTURE_SENTENCE,
  type UiFixtureInput,
} from '../fixtures/ui-workflows';
import { harnessTarget } from '../support/temporal';
import { ChromiumMissingError, TemporalWebUi, WebUiStepError } from '../support/web-ui';

const ARTIFACTS = join(__dirname, '..', 'artifacts', 'web-ui-support');

function uiUrl(): string {
  const url = process.env.TEMPORAL_UI_URL;
  if (!url) throw new Error('TEMPORAL_UI_URL is not set: run tests through scripts/run-tests.ts');
  return url;
}

/** A worker for the fixture workflows only, bundled from test/fixtures/ui-workflows on its own task queue. */
async function startFixtureWorker(taskQueue: string) {
  const target = harnessTarget();
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const native = await NativeConnection.connect({ address: target.address });
  const worker = await Worker.create({
    connection: native,
    namespace: target.namespace,
    taskQueue,
    workflowsPath: require.resolve('../fixtures/ui-workflows'),
  });
  const running = worker.run();
  const connection = await Connection.connect({ address: target.address });
  return {
    client: new Client({ connection, namespace: target.namespace }),
    async stop() {
      worker.shutdown();
      await running;
      await native.close();
      await connection.close();
    },
  };
}

function writtenScreenshot(path: string): void {
  assert.ok(statSync(path).size > 10_000, `${path} should be a real full-page screenshot`);
}

describe('Web UI helpers drive the real Temporal Web UI in headless chromium (real dev server, real worker)', () => {
  const taskQueue = `ui-fixture-${randomBytes(4).toString('hex')}`;
  const waitingId = `${taskQueue}-waiting`;
  const busyId = `${taskQueue}-busy`;
  const gate = 'approve-fixture';
  let fixtures: Awaited<ReturnType<typeof startFixtureWorker>>;
  let ui: TemporalWebUi;
  let waiting: WorkflowHandle;
  const handles: WorkflowHandle[] = [];

  before(async () => {
    ui = await TemporalWebUi.launch({ baseUrl: uiUrl(), failureScreenshotDir: ARTIFACTS });
    fixtures = await startFixtureWorker(taskQueue);
    const start = (workflowId: string, input: UiFixtureInput) =>
      fixtures.client.workflow.start('uiFixture', {
        args: [input],
        taskQueue,
        workflowId,
        staticSummary: `UI fixture ${workflowId}`,
        staticDetails: `Started by **web-ui-support.test.ts** to wait at \`${input.waitingOn ?? 'nothing'}\`.`,
      });
    waiting = await start(waitingId, { waitingOn: gate });
    handles.push(waiting, await start(busyId, {}));
  });

  after(async () => {
    for (const handle of handles) {
      const { status } = await handle.describe().catch(() => ({ status: { name: 'UNKNOWN' } }));
      if (status.name === 'RUNNING') await handle.terminate('web-ui-support test cleanup');
    }
    await fixtures?.stop();
    await ui?.close();
  });

  it('says in one sentence that chromium is missing instead of launching nothing', async () => {
    const missing = '/nonexistent/chromium';
    await assert.rejects(
      TemporalWebUi.launch({ baseUrl: uiUrl(), failureScreenshotDir: ARTIFACTS, executablePath: missing }),
      (error: unknown) =>
        error instanceof ChromiumMissingError &&
        error.message ===
          `Chromium is not installed at ${missing}: run scripts/bootstrap.sh, which installs Debian's chromium package.`,
    );
  });

  it('shows the current details the workflow set and the static summary and details it was started with', async () => {
    const page = await ui.waitForCurrentDetails(waitingId, UI_FIXTURE_SENTENCE);
    assert.match(page.status, /^running$/i);
    assert.ok(page.currentDetails.includes(`Gate: ${gate}.`), page.currentDetails);
    assert.ok(page.currentDetails.includes('{"action":"approve"}'), page.currentDetails);
    assert.equal(page.summary, `UI fixture ${waitingId}`);
    assert.equal(page.details, `Started by web-ui-support.test.ts to wait at ${gate}.`);
    writtenScreenshot(await ui.screenshot(join(ARTIFACTS, 'current-details.png')));
  });

  it('lists exactly the waiting workflow for a MeshWaitingOn query', async () => {
    const query = `${WAITING_QUERY} AND TaskQueue = '${taskQueue}'`;
    const ids = await ui.listWorkflowIds(query, (shown) => shown.includes(waitingId));
    assert.deepEqual(ids, [waitingId]);
    const all = await ui.listWorkflowIds(`TaskQueue = '${taskQueue}'`, (shown) => shown.length === 2);
    assert.deepEqual([...all].sort(), [busyId, waitingId].sort(), 'both fixtures run; only one waits');
    writtenScreenshot(await ui.screenshot(join(ARTIFACTS, 'waiting-list.png')));
  });

  it('an Update the validator refuses shows its message in the modal and leaves the workflow waiting', async () => {
    const screenshot = join(ARTIFACTS, 'update-refused.png');
    const outcome = await ui.sendUpdate(
      waitingId,
      'decide',
      { action: 'skip' },
      { screenshotTo: screenshot },
    );
    assert.deepEqual(outcome, {
      succeeded: false,
      message: 'unknown action "skip": send one of approve, retry',
      trace: undefined,
    });
    writtenScreenshot(screenshot);
    assert.equal((await waiting.describe()).status.name, 'RUNNING');
  });

  it('an Update whose handler fails shows the failure and its trace in the modal', async () => {
    const screenshot = join(ARTIFACTS, 'update-handler-failed.png');
    const outcome = await ui.sendUpdate(
      waitingId,
      'decide',
      { action: 'retry' },
      { screenshotTo: screenshot },
    );
    assert.ok(!outcome.succeeded, 'a failed handler is reported as a failure');
    assert.equal(outcome.message, RETRY_FAILURE_MESSAGE);
    assert.match(outcome.trace ?? '', /^ApplicationFailure: retry failed/);
    writtenScreenshot(screenshot);
    assert.equal((await waiting.describe()).status.name, 'RUNNING');
  });

  it('an Update name the workflow did not register is refused by the helper, or typed as Custom when allowed', async () => {
    const refused = await ui.sendUpdate(waitingId, 'decid', { action: 'approve' }).then(
      () => assert.fail('the helper should refuse a name the workflow did not register'),
      (error: unknown) => error,
    );
    assert.ok(refused instanceof WebUiStepError, String(refused));
    assert.match(
      refused.message,
      /has not registered an Update named decid; the modal offers decide, Custom/,
    );
    assert.ok(refused.screenshotPath, 'a failed step leaves a screenshot');
    writtenScreenshot(refused.screenshotPath);
    const outcome = await ui.sendUpdate(
      waitingId,
      'decid',
      { action: 'approve' },
      { allowUnregistered: true },
    );
    assert.ok(!outcome.succeeded, 'the workflow refuses an Update it has no handler for');
    assert.equal(outcome.message, 'No registered handler for update: decid');
    assert.equal((await waiting.describe()).status.name, 'RUNNING');
  });

  it('an accepted Update sent from the UI completes the workflow and the UI shows it', async () => {
    assert.deepEqual(await ui.sendUpdate(waitingId, 'decide', { action: 'approve' }), { succeeded: true });
    assert.equal(await waiting.result(), `${UI_FIXTURE_DECIDED_PREFIX} approve`);
    await ui.waitForStatus(waitingId, 'Completed');
    const page = await ui.waitForCurrentDetails(waitingId, `${UI_FIXTURE_DECIDED_PREFIX} approve`);
    assert.ok(!page.currentDetails.includes(UI_FIXTURE_SENTENCE), page.currentDetails);
    writtenScreenshot(await ui.screenshot(join(ARTIFACTS, 'update-completed.png')));
    const stillWaiting = `${MESH_WAITING_ON.name} IS NOT NULL AND TaskQueue = '${taskQueue}'`;
    assert.deepEqual(await ui.listWorkflowIds(stillWaiting, (shown) => shown.length === 0), []);
  });
});
