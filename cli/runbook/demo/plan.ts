import { join } from 'node:path';
import { hostRootFromMesh } from '../../../activities';
import { planAsLines, planReaderFrom } from '../../../client/plan';
import { DockerEngine } from '../../../docker/engine';
import type { LocalMesh } from '../../../mesh/local';
import { printLine } from '../../output';
import { plannerOf } from '../plan/run-plan';
import type { DemoKind } from './settings';
import { say } from './story';

/** What `mesh runbook plan` says about the demo's runbook on the seeded node, before the demo starts it. */
export async function showDemoPlan(mesh: LocalMesh, kind: DemoKind, input: unknown, stateDir: string) {
  // A fleet demo has no plan of its own: each node's runbook is an edge flip.
  if (kind === 'fleet') return;
  const engine = new DockerEngine();
  const reader = planReaderFrom({
    mesh,
    dockerFor: () => engine,
    hostRootOf: hostRootFromMesh(mesh),
    stateDir: join(stateDir, 'runbook'),
  });
  const plan = await plannerOf(kind, input)(reader);
  say(`what \`mesh runbook plan ${kind}\` predicts before the runbook starts:`);
  for (const line of planAsLines(plan)) printLine(`  ${line}`);
}
