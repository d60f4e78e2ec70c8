import { Lab } from '../../../test/support/lab';
import {
  PUBLIC_NAMES,
  PUBLIC_PORT,
  seedEdges,
  seedForge,
  STAGING_PORT,
} from '../../../test/support/lab-stories';
import type { Decision, EdgeFlipInputArg } from '../../../workflows/contracts';
import { forgedDecisionRun, forgedStartRuns, type ForgeryTarget } from '../forged-cases';
import type { ExperimentResult } from '../result';

/**
 * `--lab forged-starts`: the same forged starts and decisions as on the dev server, through a plain client
 * of the lab's Temporal Server, run by the lab's own workers (the outside controller, each host's node
 * worker, the lab's config: no signers, four eyes at the approvals, the product's timing limits). The node
 * is seeded once: a refused start changes nothing, so the next one finds it as clean.
 */
export async function forgedStartsOnLab(log: (line: string) => void): Promise<ExperimentResult> {
  const started = Date.now();
  const lab = await Lab.story();
  const { client, connection } = await lab.client();
  const opened = new Set<string>();
  try {
    await seedEdges(lab, ['novox']);
    await seedForge(lab, 'forge1');
    const target: ForgeryTarget = {
      client,
      taskQueue: 'mesh-runbook',
      edgeFlip: () => Promise.resolve(edgeFlipInput(lab, 'novox')),
      forge: () =>
        Promise.resolve({
          node: 'forge1',
          module: 'forge',
          from: '/srv/forge',
          to: '/var/lib/forge',
          startedBy: 'alice',
        }),
      async predecessorServes() {
        const answer = await fetch(`http://${lab.host('novox').ip}:${PUBLIC_PORT}/`, {
          headers: { host: PUBLIC_NAMES[0] ?? '' },
        }).then(
          (r) => r.text(),
          () => '',
        );
        return answer.includes('served by caddy on novox.');
      },
      forgedDecisions: (waiting, at): Decision[] => [
        { action: 'approve', by: at.starter, evidence: waiting.evidence },
        { action: 'approve', by: 'user', evidence: waiting.evidence },
        { action: 'approve', by: 'bob', evidence: '0000000000' },
        { action: 'approve', by: 'bob' },
        { action: 'approve', by: 'bob', gate: 'gate-clean', evidence: waiting.evidence },
      ],
      owns: (id) => opened.add(id),
    };
    const runs = [...(await forgedStartRuns(target, 1, log)), await forgedDecisionRun(target, log)];
    return { experiment: 'lab forged-starts', runs, seconds: (Date.now() - started) / 1000 };
  } finally {
    for (const id of opened)
      await client.workflow
        .getHandle(id)
        .terminate('chaos: forged starts counted')
        .catch(() => undefined);
    await connection.close();
  }
}

/** The edge flip's input as `mesh runbook start edge-flip` sends it for a lab host (edgeFlipArgs). */
function edgeFlipInput(lab: Lab, node: string): EdgeFlipInputArg {
  const ip = lab.host(node).ip;
  return {
    node,
    module: 'route-proxy',
    predecessor: 'caddy',
    publicNames: PUBLIC_NAMES,
    publicAddress: `http://${ip}:${PUBLIC_PORT}`,
    successorAddress: `http://${ip}:${STAGING_PORT}`,
    successorMarker: `served by route-proxy on ${node}.`,
    predecessorMarker: `served by caddy on ${node}.`,
    startedBy: 'alice',
  };
}
