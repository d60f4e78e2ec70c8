import { ApplicationFailure, workflowInfo } from '@temporalio/workflow';
import { FAILURE, type PredictedVerdicts, type Signer, type Timings } from '../contracts';
import { fleetWorkflowId } from '../fleet/contracts';
import type { RunbookPolicy } from '../policy';
import { checkStartSignature, startSignedMode, type SignedStart } from '../signing/start-signature';
import { PRODUCT_TIMING_LIMITS, timingsRefusal } from '../timing-limits';
import { VERDICTS } from '../verdict/types';
import type { RunbookPlan } from './plan';

/** What a runbook's input says that only somebody entitled may say: checked at its first task. */
export interface Claims {
  node: string;
  module: string;
  startedBy: string;
  timings?: Timings | undefined;
  predicted?: PredictedVerdicts | undefined;
  /** The fields only the module's fleet may give (fleetApproval, fleet), by name, when present. */
  fromFleet: string[];
  signedStart?: SignedStart | undefined;
}

/**
 * Refuses, before the runbook changes anything, an input it cannot verify (anyone who may start a workflow
 * can type any input: the Web UI, `temporal workflow start`, a script): fields only the module's fleet
 * gives, from a run that is not that fleet's child; timings outside the worker's policy; predictions of
 * gates the plan lacks; a start the policy wants signed and is not, by the key of its starter. A child
 * of the module's fleet was started by it (Temporal records the parent; no input can fake it), and the
 * fleet checked its own start. Returns the start's proven signer, when signed.
 */
export function refuseUntrusted(
  raw: object,
  claims: Claims,
  plan: RunbookPlan,
  policy: RunbookPolicy,
): Signer | undefined {
  const info = workflowInfo();
  const fleet = fleetWorkflowId(claims.module);
  const byFleet = info.parent?.workflowId === fleet;
  if (claims.fromFleet.length > 0 && !byFleet)
    untrusted(
      `${claims.fromFleet.join(' and ')} may only come from ${fleet}, the fleet runbook of ${claims.module}, and this run was ${info.parent ? `started by ${info.parent.workflowId}` : 'not started by a fleet'}: nothing was changed; start it with mesh runbook start (a fleet with --nodes).`,
    );
  const timings =
    claims.timings && timingsRefusal(claims.timings, policy.timingLimits ?? PRODUCT_TIMING_LIMITS);
  if (timings) untrusted(timings);
  const gates = plan.steps.map((step) => step.name);
  const predicted = Object.entries(claims.predicted ?? {}).filter(
    ([gate, verdict]) => !gates.includes(gate) || !(VERDICTS as readonly string[]).includes(verdict),
  );
  if (predicted.length > 0)
    untrusted(
      `The input predicts ${predicted.map(([gate, verdict]) => `${verdict} at ${gate}`).join(', ')}, which no plan of ${plan.kind} can: a prediction comes from mesh runbook plan, for the plan's own gates.`,
    );
  if (byFleet) return undefined;
  const signer = checkStartSignature(raw, startSignedMode(policy, gates), policy, {
    namespace: info.namespace,
    runbook: info.workflowId,
    kind: plan.kind,
    node: claims.node,
    module: claims.module,
    startedBy: claims.startedBy,
    startedMs: info.startTime.getTime(),
  });
  if (typeof signer === 'string') untrusted(signer);
  return signer;
}

/** An input refused at the first task: the run ends failed with the sentence, having changed nothing. */
export function untrusted(why: string): never {
  throw ApplicationFailure.nonRetryable(why, FAILURE.invalidInput);
}
