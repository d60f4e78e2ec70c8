import { z } from 'zod';
import { MeshUnreadableError } from '../../mesh/errors';
import type { MeshPort } from '../../mesh/port';
import {
  AbsolutePath,
  ModuleSpec,
  Name,
  UpgradePolicy,
  type ApplyReport,
  type NodeState,
} from '../../mesh/schemas';
import { ApplyReportTimeoutError, waitForApplyReport } from '../../mesh/wait-for-apply';
import type { NodeStateEvidence, ReceiptEvidence, ReportEvidence } from '../../workflows/verdict';
import { invalidInput, parseActivityInput, refusalsAreFinal } from '../failures';
import { activitySignal, heartbeat } from '../../base/activity-heartbeat';
import { withinEvidenceLimit } from './evidence-limit';
import { containersMountingPath, moveMounts, moveProblem } from './module-mounts';

export interface MeshActivityDeps {
  mesh: MeshPort;
}

interface ModuleOnNode {
  module: string;
  node: string;
}

const ModuleInput = z.object({ module: Name });
const PolicyInput = z.object({ module: Name, policy: UpgradePolicy });
const MoveInput = z.object({ module: Name, from: AbsolutePath, to: AbsolutePath });
const RestoreInput = z.object({ spec: ModuleSpec });
const MountingInput = z.object({ node: Name, module: Name, path: AbsolutePath });

const n = (count: number) => count.toLocaleString('en-US');
const reportCounts = (r: ApplyReport) =>
  `${n(r.appliedIds.length)} applied, ${n(r.held.length)} held and ${n(r.failed.length)} failed resources`;
const stateCounts = (s: NodeState) =>
  [
    `${n(s.holds.length)} holds`,
    `${n(s.assigned.length)} assigned modules`,
    ...(s.lastApply ? [`its last apply: ${reportCounts(s.lastApply)}`] : []),
  ].join('; ');

function unreadable(
  error: unknown,
  fallbackSource: string,
): { readable: false; source: string; error: string } {
  if (error instanceof MeshUnreadableError)
    return { readable: false, source: error.source, error: error.message };
  if (error instanceof ApplyReportTimeoutError)
    return { readable: false, source: fallbackSource, error: error.message };
  throw error;
}

/**
 * How the node state's record of this push differs from the push's own report, if it does: two documents
 * of one node about one push that disagree are not evidence of either (a node may not be believed twice).
 */
function lastApplyDiffers(report: ApplyReport, state: NodeState): string | undefined {
  const last = state.lastApply;
  if (!last || last.pushId !== report.pushId) return undefined;
  const facts = (a: ApplyReport) => ({
    node: a.node,
    applied: a.applied,
    appliedIds: [...a.appliedIds].sort(),
    held: a.held.map((h) => h.resource).sort(),
    failed: a.failed.map((f) => f.resource).sort(),
  });
  const [mine, theirs] = [facts(last), facts(report)];
  const differing = (Object.keys(mine) as (keyof typeof mine)[]).filter(
    (key) => JSON.stringify(mine[key]) !== JSON.stringify(theirs[key]),
  );
  return differing.length > 0 ? `${differing.join(', ')}` : undefined;
}

/** Mesh verbs as activities. Push is not idempotent in id, but repeating it sends the same desired state. */
export function createMeshActivities({ mesh }: MeshActivityDeps) {
  return {
    async assignModule({ module, node }: ModuleOnNode): Promise<void> {
      await refusalsAreFinal(() => mesh.assign(module, node));
    },
    async unassignModule({ module, node }: ModuleOnNode): Promise<void> {
      await refusalsAreFinal(() => mesh.unassign(module, node));
    },
    async takeModule({ module, node }: ModuleOnNode): Promise<void> {
      await refusalsAreFinal(() => mesh.take(module, node));
    },
    async pushNode({ node }: { node: string }): Promise<ReceiptEvidence> {
      const source = `push of ${node}`;
      try {
        const value = await refusalsAreFinal(() => mesh.push(node));
        return withinEvidenceLimit(
          { readable: true, value },
          source,
          (r) => `${n(r.resourceIds.length)} resources sent`,
        );
      } catch (error) {
        return unreadable(error, source);
      }
    },
    /** The node's report of exactly this push and its state; unreadable (never ok) when either does not parse. */
    async collectApplyEvidence(input: {
      node: string;
      pushId: string;
      timeoutMs: number;
    }): Promise<{ report: ReportEvidence; nodeState: NodeStateEvidence }> {
      const { node, pushId, timeoutMs } = input;
      const [reportSource, stateSource] = [`apply report of ${pushId} on ${node}`, `state of node ${node}`];
      let report: ReportEvidence;
      try {
        heartbeat({ waitingFor: pushId });
        const value = await waitForApplyReport(mesh, node, pushId, {
          timeoutMs,
          signal: activitySignal(),
          onPoll: () => heartbeat({ waitingFor: pushId }),
        });
        report = withinEvidenceLimit({ readable: true, value }, reportSource, reportCounts);
      } catch (error) {
        report = unreadable(error, reportSource);
      }
      let nodeState: NodeStateEvidence;
      try {
        const value = await refusalsAreFinal(() => mesh.nodeState(node));
        nodeState = withinEvidenceLimit({ readable: true, value }, stateSource, stateCounts);
      } catch (error) {
        nodeState = unreadable(error, stateSource);
      }
      const disagreement =
        report.readable && nodeState.readable && lastApplyDiffers(report.value, nodeState.value);
      if (disagreement)
        nodeState = {
          readable: false,
          source: stateSource,
          error: `its last apply of ${pushId} differs from the report of that push: ${disagreement}`,
        };
      return { report, nodeState };
    },
    /** The nodes the module is assigned to, sorted: a move of one node's data changes the spec of all. */
    async moduleNodes(input: { module: string }): Promise<string[]> {
      const { module } = parseActivityInput('moduleNodes', ModuleInput, input);
      return refusalsAreFinal(() => mesh.moduleNodes(module));
    },
    async readModuleSpec(input: { module: string }): Promise<ModuleSpec> {
      const { module } = parseActivityInput('readModuleSpec', ModuleInput, input);
      return refusalsAreFinal(() => mesh.moduleSpec(module));
    },
    /** Idempotent: setting the policy a module already has changes nothing. */
    async setUpgradePolicy(input: { module: string; policy: UpgradePolicy }): Promise<void> {
      const { module, policy } = parseActivityInput('setUpgradePolicy', PolicyInput, input);
      await refusalsAreFinal(() => mesh.setUpgradePolicy(module, policy));
    },
    /**
     * Moves every mount host path and data dir of the module's spec at or under `from` to the same
     * sub-path under `to`, and writes the spec (it takes effect on the next push; mesh does not recreate a
     * running container for it, docs/design.md §1, incident 2). `changed` names the containers whose
     * mounts moved.
     * Idempotent: a second run finds nothing under `from`, writes nothing and returns `changed: []`.
     * The spec is read and written whole: a concurrent change to it between the two would be lost.
     */
    async moveModuleMounts(input: {
      module: string;
      from: string;
      to: string;
    }): Promise<{ spec: ModuleSpec; changed: string[] }> {
      const { module, from, to } = parseActivityInput('moveModuleMounts', MoveInput, input);
      const problem = moveProblem(from, to);
      if (problem) throw invalidInput('moveModuleMounts', problem);
      const spec = await refusalsAreFinal(() => mesh.moduleSpec(module));
      const moved = moveMounts(spec, from, to);
      if (JSON.stringify(moved.spec) !== JSON.stringify(spec)) {
        await refusalsAreFinal(() => mesh.setModuleSpec(moved.spec));
      }
      return moved;
    },
    /**
     * Puts a spec read earlier back as it was, upgrade policy included (the spec carries it). Idempotent.
     * Like any spec change it takes effect on the next push, and does not recreate running containers.
     */
    async restoreModuleSpec(input: { spec: ModuleSpec }): Promise<void> {
      const { spec } = parseActivityInput('restoreModuleSpec', RestoreInput, input);
      await refusalsAreFinal(() => mesh.setModuleSpec(spec));
    },
    /**
     * Spec names of the module's containers that mount `path` or a path under it, in spec order. Read
     * from the module's spec (what mesh will run), not from Docker; `node` is where the runbook acts.
     */
    async containersMounting(input: { node: string; module: string; path: string }): Promise<string[]> {
      const { module, path } = parseActivityInput('containersMounting', MountingInput, input);
      const spec = await refusalsAreFinal(() => mesh.moduleSpec(module));
      return containersMountingPath(spec, path);
    },
  };
}

export type MeshActivities = ReturnType<typeof createMeshActivities>;
