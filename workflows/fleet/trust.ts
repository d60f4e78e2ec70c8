import { workflowInfo } from '@temporalio/workflow';
import type { RunbookKind, Signer } from '../contracts';
import { PLANS } from '../plans';
import type { RunbookPolicy } from '../policy';
import { checkStartSignature, startSignedMode } from '../signing/start-signature';
import { PRODUCT_TIMING_LIMITS, timingsRefusal } from '../timing-limits';
import { untrusted } from '../runbook/trust';
import { FLEET_NODE, type AnyFleetInput, type StandsFor } from './contracts';

/** What only the fleet sets in a node's runbook: given in its own input, the fleet would hand it on. */
const FLEET_SETS = ['fleetApproval', 'fleet', 'signedStart'] as const;

/**
 * Refuses, before any node starts, a fleet input nobody entitled gave: state carried from an earlier run in
 * a run that continued from none; node runbooks carrying what only the fleet sets, or another starter;
 * timings outside the worker's policy; an unsigned start where the policy wants it signed. A run the fleet
 * continued as was checked in its first run. Returns the start's proven signer, when signed.
 */
export function refuseUntrustedFleet(
  input: AnyFleetInput,
  raw: object,
  { kind, standsFor }: { kind: RunbookKind; standsFor: StandsFor },
  policy: RunbookPolicy,
): Signer | undefined {
  const info = workflowInfo();
  const continued = info.continuedFromExecutionRunId !== undefined;
  const carried = [
    ...(input.carried ? ['carried'] : []),
    ...('policyBefore' in input && input.policyBefore !== undefined ? ['policyBefore'] : []),
  ];
  if (carried.length > 0 && !continued)
    untrusted(
      `${carried.join(' and ')} is what a fleet hands the run it continues as, and this run continued from none: nothing was changed; start the fleet with mesh runbook start --nodes.`,
    );
  for (const runbook of input.runbooks) {
    const set = FLEET_SETS.filter((field) => (runbook as Record<string, unknown>)[field] !== undefined);
    if (set.length > 0)
      untrusted(
        `The runbook of ${runbook.node} carries ${set.join(', ')}, which only the fleet sets for its nodes: nothing was changed; start the fleet with mesh runbook start --nodes.`,
      );
    if (runbook.startedBy !== input.startedBy)
      untrusted(
        `The runbook of ${runbook.node} says it was started by ${runbook.startedBy}, the fleet by ${input.startedBy}: a fleet's nodes are started by whoever started the fleet.`,
      );
    const timings = timingsRefusal(runbook.timings, policy.timingLimits ?? PRODUCT_TIMING_LIMITS);
    if (timings) untrusted(`${runbook.node}: ${timings}`);
  }
  if (continued) return undefined;
  const gates = [...PLANS[kind].steps.map((step) => step.name), standsFor.wavesGate];
  const signer = checkStartSignature(raw, startSignedMode(policy, gates), policy, {
    namespace: info.namespace,
    runbook: info.workflowId,
    kind,
    node: FLEET_NODE,
    module: input.module,
    startedBy: input.startedBy,
    startedMs: info.startTime.getTime(),
  });
  if (typeof signer === 'string') untrusted(signer);
  return signer;
}
