import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Connection, WorkflowHandle } from '@temporalio/client';
import type { RunbookHistory } from '../../cli/runbook/history/record';
import { statusQuery, type RunbookStatus } from '../../workflows/contracts';
import { WAITING_QUERY } from '../../workflows/search-attributes';
import { Lab } from '../support/lab';
import { runbookWorkflowId } from '../../workflows/contracts';
import { edgeFlipArgs, labStatusWhen, seedEdges } from '../support/lab-stories';
import { startLabUiServer } from '../support/lab-ui-server';
import { CsrfRefusedError, decisionShown, TemporalWebUi, WebUiStepError } from '../support/web-ui';

const NODE = 'novox';
const ARTIFACTS = join(__dirname, '..', 'artifacts', 'lab-web-ui');

/** route-proxy's containers as novox's own engine runs them (the controller's labels), never mesh's report. */
async function routeProxyOnHost(lab: Lab) {
  const found = await lab.engine(NODE).listByLabels({ 'org.meshctl.module': 'route-proxy' });
  return found
    .map((c) => [c.Names[0]?.replace(/^\//, ''), c.State])
    .sort((a, b) => String(a[0]).localeCompare(String(b[0])));
}

/** The sentence of a wait as the UI renders it: markdown gives typographic quotes, so up to the first quote. */
const shownSentence = (status: RunbookStatus) => (status.waiting?.reason ?? '').split('"')[0] ?? '';

describe("an operator decides the lab's edge flip in a Web UI of the lab (ui-server on Temporal + PostgreSQL, namespace mesh, headless Debian chromium)", () => {
  const workflowId = runbookWorkflowId(NODE);
  let lab: Lab;
  let connection: Connection;
  let handle: WorkflowHandle;
  let held: RunbookStatus;

  before(async () => {
    lab = await Lab.story();
    await seedEdges(lab, [NODE], [NODE]);
    const started = await lab.cli(
      'runbook',
      'start',
      'edge-flip',
      ...edgeFlipArgs(lab, NODE),
      '--yes',
      '--detach',
      '--json',
    );
    assert.equal(started.code, 0, started.stderr);
    const opened = await lab.client();
    connection = opened.connection;
    handle = opened.client.workflow.getHandle(workflowId);
    held = await labStatusWhen(handle, (s) => s.waiting?.gate === 'gate-apply');
    assert.equal(held.waiting?.verdict, 'held', held.waiting?.reason);
  });

  after(async () => {
    // However the story ended, leave no runbook open on the lab: a flip still running is aborted (undone).
    try {
      if (handle && (await handle.describe()).status.name === 'RUNNING') {
        const aborted = await lab.cli('runbook', 'abort', NODE, '--as', 'carol');
        assert.equal(aborted.code, 0, `the flip left open could not be aborted: ${aborted.stderr}`);
      }
    } finally {
      await connection?.close();
    }
  });

  it('a UI whose CSRF cookie the browser drops (Secure, plain HTTP off loopback) is refused by its ui-server, says so, and moves nothing', async () => {
    const blind = await startLabUiServer(lab, { host: lab.gateway, cookieInsecure: false });
    const ui = await TemporalWebUi.launch({
      baseUrl: blind.url,
      namespace: lab.temporal.namespace,
      // Its refused steps leave their screenshots here (the page as the operator sees it).
      failureScreenshotDir: join(ARTIFACTS, 'csrf-refused'),
    });
    try {
      const details = await ui.waitForCurrentDetails(workflowId, shownSentence(held)).then(
        () => assert.fail('a UI without its CSRF cookie cannot query the current details'),
        (error: unknown) => error,
      );
      assert.ok(
        details instanceof WebUiStepError && details.cause instanceof CsrfRefusedError,
        String(details),
      );
      assert.match(
        details.message,
        new RegExp(`POST /api/v1/namespaces/mesh/workflows/${workflowId}/query/\\S+: missing csrf token`),
      );

      // Without the query the modal knows no registered names: the operator types decide into Name.
      const shown = { action: 'take', by: 'dana', identity: 'web-ui', evidence: held.waiting?.evidence };
      const take = await ui.sendUpdate(workflowId, 'decide', shown, { allowUnregistered: true }).then(
        () => assert.fail('a UI without its CSRF cookie cannot send an Update'),
        (error: unknown) => error,
      );
      assert.ok(take instanceof WebUiStepError && take.cause instanceof CsrfRefusedError, String(take));
      assert.ok(
        take.cause.refused.some((line) =>
          line.startsWith(
            `POST /api/v1/namespaces/mesh/workflows/${workflowId}/update/decide: missing csrf token`,
          ),
        ),
        take.cause.refused.join('\n'),
      );
    } finally {
      await ui.close();
      await blind.stop();
    }

    const still = await handle.query(statusQuery);
    assert.equal(still.waiting?.gate, 'gate-apply');
    assert.equal(still.waiting?.evidence, held.waiting?.evidence);
    assert.deepEqual(still.decisions, []);
    assert.deepEqual(await routeProxyOnHost(lab), [], 'novox still holds every route-proxy container');
  });

  it("novox's hold is taken in the lab's ui-server: the runbook records the UI's decision and novox's engine runs route-proxy", async () => {
    const ui = await TemporalWebUi.launch({
      baseUrl: lab.uiUrl,
      namespace: lab.temporal.namespace,
      failureScreenshotDir: ARTIFACTS,
      actionTimeoutMs: 60_000,
    });
    try {
      assert.deepEqual(await routeProxyOnHost(lab), [], 'novox held every route-proxy container');
      const page = await ui.waitForCurrentDetails(workflowId, shownSentence(held));
      assert.ok(
        new URL(ui.page.url()).pathname.startsWith(`/namespaces/${lab.temporal.namespace}/workflows/`),
        ui.page.url(),
      );
      assert.equal(page.summary, `edge-flip on ${NODE}: caddy → route-proxy (started by ${held.startedBy})`);
      assert.ok(page.currentDetails.includes(`Evidence ${held.waiting?.evidence}`), page.currentDetails);
      await ui.screenshot(join(ARTIFACTS, 'waiting-details.png'));
      const listed = await ui.listWorkflowIds(`${WAITING_QUERY} AND MeshNode = '${NODE}'`, (ids) =>
        ids.includes(workflowId),
      );
      assert.deepEqual(listed, [workflowId], "the UI lists the waiting flip from PostgreSQL's visibility");
      await ui.screenshot(join(ARTIFACTS, 'waiting-list.png'));

      const take = await ui.sendUpdate(
        workflowId,
        'decide',
        decisionShown(page.currentDetails, 'take', 'dana'),
        {
          screenshotTo: join(ARTIFACTS, 'take-sent.png'),
        },
      );
      assert.deepEqual(take, { succeeded: true });

      const approval = await labStatusWhen(handle, (s) => s.waiting?.gate === 'approve-stop-predecessor');
      const decided = [['gate-apply', 'take', 'dana', 'web-ui', held.waiting?.evidence]];
      assert.deepEqual(
        approval.decisions.map((d) => [d.gate, d.action, d.by, d.identity, d.evidence]),
        decided,
      );
      const history = await lab.cli('runbook', 'history', NODE, '--json');
      assert.equal(history.code, 0, history.stderr);
      assert.deepEqual(
        (JSON.parse(history.stdout) as RunbookHistory).decisions.map((d) => [
          d.gate,
          d.action,
          d.by,
          d.identity,
          d.evidence,
        ]),
        decided,
        "Temporal's event history holds the Update the UI sent",
      );
      assert.deepEqual(
        await routeProxyOnHost(lab),
        [
          ['route-proxy_ca_1', 'running'],
          ['route-proxy_dns_1', 'running'],
          ['route-proxy_edge_1', 'running'],
        ],
        "novox's own engine runs route-proxy once the hold was taken",
      );
      const atApproval = await ui.waitForCurrentDetails(workflowId, `Evidence ${approval.waiting?.evidence}`);
      assert.ok(
        atApproval.currentDetails.includes('take at gate-apply by dana (typed in the Web UI, self-declared)'),
        atApproval.currentDetails,
      );
      await ui.screenshot(join(ARTIFACTS, 'approval-details.png'));

      const approve = await lab.cli('runbook', 'approve', NODE, 'approve-stop-predecessor', '--as', 'carol');
      assert.equal(approve.code, 0, approve.stderr);
      const done = await labStatusWhen(handle, (s) => s.phase !== 'running' && s.phase !== 'waiting');
      assert.equal(done.phase, 'completed', done.outcome);
      await ui.waitForStatus(workflowId, 'Completed');
      await ui.screenshot(join(ARTIFACTS, 'completed-details.png'));
    } finally {
      await ui.close();
    }
  });
});
