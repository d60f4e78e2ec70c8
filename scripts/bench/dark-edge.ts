import { WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import { startRunbook } from '../../client/start-runbook';
import { acquireLock } from '../../mesh/local/lock';
import { successorSpec } from '../../mesh/local/scenarios/edge-flip-incident';
import { edgeFlip } from '../../workflows';
import { decideUpdate, statusQuery, type RunbookStatus } from '../../workflows/contracts';
import type { BenchEnv } from './bench-env';
import { seedEdgeFlip } from './executor';

/**
 * A dark edge: the successor answers on its staging port but never takes the public port, so probe-public
 * fails after the predecessor stopped and the rollback must light the names again. Timed with the
 * controller answering and with it not answering (its lock held from probe-public on, so every mesh verb
 * waits), side by side: lighting the edge first makes the two the same.
 */
export interface DarkEdgeRun {
  controllerDown: boolean;
  round: number;
  ok: boolean;
  failure?: string;
  /** From probe-public's failure to the predecessor's own page on the public address. */
  litAfterFailedProbeMs?: number;
  /** From the predecessor's stop to its page served again: the whole outage. */
  outageMs?: number;
  phase?: string;
}

const PROBE_DEADLINE_MS = 4_000;
const DARK_LIMIT_MS = 90_000;
/** Not the starter (`bench`): four eyes refuse an approval by whoever started the runbook. */
const DECIDER = 'bench-operator';

async function statusWhen(
  handle: WorkflowHandle,
  until: (status: RunbookStatus) => boolean,
): Promise<RunbookStatus> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const status = await handle.query(statusQuery).catch(() => undefined);
    if (status && until(status)) return status;
    if (Date.now() > deadline) throw new Error(`no such status within 2 minutes (${status?.phase ?? '-'})`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function servedWith(address: string, marker: string): Promise<number | undefined> {
  const deadline = Date.now() + DARK_LIMIT_MS;
  while (Date.now() < deadline) {
    const body = await fetch(`${address}/`, { signal: AbortSignal.timeout(1_000) })
      .then((r) => r.text())
      .catch(() => '');
    if (body.includes(marker)) return Date.now();
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return undefined;
}

const endedAt = (status: RunbookStatus, step: string) =>
  Date.parse(status.steps.find((s) => s.name === step)?.endedAt ?? '');

/** One dark edge on a fresh node of the bench's dev server; never throws for a runbook that went wrong. */
export async function darkEdgeRun(
  env: BenchEnv,
  controllerDown: boolean,
  round: number,
): Promise<DarkEdgeRun> {
  const node = env.newNode(controllerDown ? 'dkd' : 'dku');
  const run: DarkEdgeRun = { controllerDown, round, ok: false };
  try {
    const input = await seedEdgeFlip(env, node, { leftovers: false, ownModules: true });
    const port = (address: string) => Number(new URL(address).port);
    const spec = successorSpec(input.module, {
      publicPort: port(input.publicAddress),
      stagingPort: port(input.successorAddress),
    });
    const serve = `echo "served by ${input.module}" > /www/index.html && exec httpd -f -p 127.0.0.1:${port(input.successorAddress)} -h /www`;
    await env.mesh.defineModule({
      ...spec,
      containers: spec.containers.map((c) =>
        c.name === 'edge' ? { ...c, command: ['sh', '-c', serve] } : c,
      ),
    });
    const handle = await startRunbook(
      env.client,
      edgeFlip,
      { ...input, timings: { probeDeadlineMs: PROBE_DEADLINE_MS } },
      { taskQueue: env.taskQueue },
    );
    const asked = await statusWhen(handle, (s) => s.waiting?.gate === 'approve-stop-predecessor');
    await handle.executeUpdate(decideUpdate, {
      args: [
        {
          gate: 'approve-stop-predecessor',
          action: 'approve',
          by: DECIDER,
          evidence: asked.waiting?.evidence,
        },
      ],
    });
    await statusWhen(handle, (s) => s.steps.some((x) => x.name === 'probe-public' && x.state === 'running'));
    const controllerBack = controllerDown
      ? await acquireLock(env.mesh.layout.controllerLock, { timeoutMs: 10_000 })
      : undefined;
    let lit: number | undefined;
    try {
      lit = await servedWith(
        input.publicAddress,
        input.predecessorMarker ?? `served by ${input.predecessor}`,
      );
    } finally {
      await controllerBack?.();
    }
    await handle.result().catch((error: unknown) => {
      if (!(error instanceof WorkflowFailedError)) throw error;
    });
    const status = await handle.query(statusQuery);
    run.phase = status.phase;
    if (lit === undefined) run.failure = `the predecessor did not serve within ${DARK_LIMIT_MS / 1000} s`;
    else if (status.phase !== 'rolled-back') run.failure = `ended ${status.phase}: ${status.outcome ?? ''}`;
    else {
      run.ok = true;
      run.litAfterFailedProbeMs = lit - endedAt(status, 'probe-public');
      run.outageMs = lit - endedAt(status, 'stop-predecessor');
    }
  } catch (error) {
    run.failure = error instanceof Error ? error.message : String(error);
  } finally {
    await env.removeNode(node);
  }
  return run;
}
