import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { getWithHost } from '../../activities/probes/http-get';
import { statusQuery } from '../../workflows/contracts';
import { Lab } from '../support/lab';
import { fleetArgs, labStatusWhen, PUBLIC_NAMES, PUBLIC_PORT, seedEdges } from '../support/lab-stories';

const NODES = ['novox', 'forge1', 'edge3'];

describe('a fleet over the three hosts of the production-shaped lab', () => {
  let lab: Lab;
  before(async () => {
    lab = await Lab.story();
  });

  it('refused while its addresses are one URL for every node; then flips every host on two approvals (canary-then-waves), each proving it answered itself, continuing as new past its history bound', async () => {
    await seedEdges(lab, NODES);
    // A bound of 100 events: the canary and the waves' approval fill half of it, so the fleet continues as new.
    const args = [...fleetArgs(NODES, 1, 'canary-then-waves'), '--history-bound', '100'];

    const sameUrl = args.map((a) =>
      a === `http://{node}.lab:${PUBLIC_PORT}` ? `http://${lab.host('novox').ip}:${PUBLIC_PORT}` : a,
    );
    const { client, connection } = await lab.client();
    // The nodes' statuses asked while the fleet is polled: all answered before the connection closes.
    const asking: Promise<unknown>[] = [];
    try {
      const fleet = client.workflow.getHandle('runbook-fleet-route-proxy');
      // The lab's Temporal keeps the fleets of earlier runs (its PostgreSQL outlives them): none may be new.
      const latestRun = () =>
        fleet.describe().then(
          (d) => d.runId,
          () => undefined,
        );
      const before = await latestRun();
      const refused = await lab.cli('runbook', 'start', 'edge-flip', ...sameUrl, '--yes', '--detach');
      assert.equal(refused.code, 2, refused.stderr);
      assert.match(refused.stderr, /same/);
      assert.equal(await latestRun(), before, 'nothing started');

      const plan = await lab.cli('runbook', 'plan', 'edge-flip', ...args);
      assert.equal(plan.code, 0, `${plan.stdout}${plan.stderr}`);
      for (const node of NODES) assert.match(plan.stdout, new RegExp(node));

      const started = await lab.cli('runbook', 'start', 'edge-flip', ...args, '--yes', '--detach');
      assert.equal(started.code, 0, started.stderr);
      const approved = new Set<string>();
      let waves: Promise<{ code: number; stderr: string }> | undefined;
      const done = await labStatusWhen(
        fleet,
        (s) => {
          if (s.waiting?.gate === 'approve-waves' && !waves)
            waves = lab.cli('runbook', 'approve', 'fleet-route-proxy', 'approve-waves', '--as', 'carol');
          for (const node of NODES)
            if (!approved.has(node))
              asking.push(
                client.workflow
                  .getHandle(`runbook-${node}`)
                  .query(statusQuery)
                  .then(async (own) => {
                    if (own.waiting?.gate !== 'approve-stop-predecessor' || approved.has(node)) return;
                    approved.add(node);
                    const approve = await lab.cli(
                      'runbook',
                      'approve',
                      node,
                      'approve-stop-predecessor',
                      '--as',
                      'carol',
                    );
                    if (approve.code !== 0) approved.delete(node);
                  })
                  .catch(() => undefined),
              );
          return s.phase !== 'running' && s.phase !== 'waiting';
        },
        600_000,
      );
      assert.equal(done.phase, 'completed', done.outcome);
      assert.equal((await waves)?.code, 0, 'the waves were approved at the fleet');
      const last = await fleet.fetchHistory();
      const input = last.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0]?.data;
      const carried = (
        JSON.parse(Buffer.from(input ?? []).toString('utf8')) as { carried?: { runs: number } }
      ).carried;
      assert.ok(carried && carried.runs >= 1, 'the last run of the fleet was continued from an earlier one');
      assert.ok((last.events?.length ?? 0) <= 100, `its last run has ${last.events?.length} events`);
      assert.deepEqual(
        done.decisions.map((d) => `${d.gate} ${d.by}`),
        ['approve-waves carol'],
        'the last run knows the approval an earlier one took',
      );
      assert.deepEqual([...approved], ['novox'], 'only the canary asked its own approval');
      for (const node of NODES.slice(1)) {
        const own = await client.workflow.getHandle(`runbook-${node}`).query(statusQuery);
        assert.match(
          own.steps.find((step) => step.name === 'approve-stop-predecessor')?.note ?? '',
          /^approved for the fleet by carol \(approve-waves of runbook-fleet-route-proxy, evidence [0-9a-f]{10}\); ok at first look: gate-apply /,
          node,
        );
      }
    } finally {
      await Promise.allSettled(asking);
      await connection.close();
    }

    for (const node of NODES) {
      const engine = lab.engine(node);
      const successor = await engine.listByLabels({ 'org.meshctl.module': 'route-proxy' });
      assert.deepEqual(
        successor.map((c) => [c.Names[0], c.State]).sort(),
        [
          ['/route-proxy_ca_1', 'running'],
          ['/route-proxy_dns_1', 'running'],
          ['/route-proxy_edge_1', 'running'],
        ],
        node,
      );
      assert.deepEqual(
        await engine.listByLabels({ 'org.meshctl.module': 'caddy' }),
        [],
        `caddy gone from ${node}`,
      );
      for (const name of PUBLIC_NAMES) {
        const answer = await getWithHost(
          new URL(`http://${lab.host(node).ip}:${PUBLIC_PORT}`),
          name,
          5_000,
          true,
        );
        assert.ok(
          'body' in answer && answer.body.includes(`served by route-proxy on ${node}.`),
          JSON.stringify(answer),
        );
      }
    }
  });
});
