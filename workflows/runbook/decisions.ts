import {
  ApplicationFailure,
  condition,
  deprecatePatch,
  log,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import {
  Decision,
  decideUpdate,
  type FleetApproval,
  type RecordedDecision,
  type Waiting,
} from '../contracts';
import { CANCELLED_WORK_GRACE_MS, FLEET_APPROVAL_MAX_AGE_MS, type RunbookPolicy } from '../policy';
import { firstIssue } from '../../base/zod-issue';
import { policyRefusal } from './approvers';
import { notify, settings } from './activities';
import { evidenceChange, type Evidence } from './evidence';
import type { Progress, WaitingRequest } from './progress';
import { failureMessage } from './failures';
import { MAX_REMINDER_BACKOFF, REMINDER_BACKOFF } from './revision';
import { checkSignature, revokedSigner, signedModeAt, signerOf } from '../signing/decision-signature';
import { parseSignature } from '../signing/ssh-signature';

export const DECISION_REJECTED = 'DecisionRejected';

/** A refusal carries its sentence only: the Web UI's Update dialog shows it, not the worker's file paths. */
export function reject(message: string): never {
  const refusal = ApplicationFailure.nonRetryable(message, DECISION_REJECTED);
  refusal.stack = '';
  throw refusal;
}

export function clockOf(iso: string): string {
  return `${iso.slice(11, 19)} UTC`;
}

/** Why this decision fits no gate the runbook waits at, or undefined when it fits. */
export function misfit(
  waiting: Waiting | null,
  decision: Decision,
  context: {
    currentStep?: string | undefined;
    decided: readonly RecordedDecision[];
    pending?: RecordedDecision;
  },
): string | undefined {
  const { pending } = context;
  if (pending) {
    return `A decision was already taken at ${pending.gate}: ${pending.action} by ${pending.by} at ${clockOf(pending.at)}; it is being carried out, so this one is not. Look again (mesh runbook status) before deciding anew.`;
  }
  const where = waiting ? `now waits at ${waiting.gate}` : `is at step ${context.currentStep ?? 'start'}`;
  // The loser of two decisions on one look, sent without its gate (the Web UI's payload), with an action the next
  // gate lacks: the winner by its evidence. One the next gate offers is refused as stale by the handler, on record.
  const won =
    decision.evidence !== undefined &&
    decision.evidence !== waiting?.evidence &&
    !waiting?.actions.includes(decision.action);
  const winner = won
    ? [...context.decided].reverse().find((d) => d.evidence === decision.evidence)
    : undefined;
  if (decision.gate === undefined && winner) {
    return `Gate ${winner.gate} was already decided on evidence ${decision.evidence}: ${winner.action} by ${winner.by} at ${clockOf(winner.at)}; the runbook ${where}.`;
  }
  const earlier = [...context.decided].reverse().find((d) => d.gate === (decision.gate ?? waiting?.gate));
  if (decision.gate !== undefined && decision.gate !== waiting?.gate && earlier) {
    return `Gate ${earlier.gate} was already decided: ${earlier.action} by ${earlier.by} at ${clockOf(earlier.at)}; the runbook ${where}.`;
  }
  if (!waiting)
    return `The runbook is not waiting for a decision (it is at step ${context.currentStep ?? 'start'}).`;
  if (decision.gate !== undefined && decision.gate !== waiting.gate) {
    return `The runbook is waiting at gate ${waiting.gate}, not ${decision.gate}; send the decision for ${waiting.gate}.`;
  }
  if (!waiting.actions.includes(decision.action)) {
    return `${decision.action} is not an action at gate ${waiting.gate} (${waiting.verdict}); choose one of: ${waiting.actions.join(', ')}.`;
  }
  return undefined;
}

/** Why the policy or the evidence refuses this decision at the waiting gate, or undefined. */
function refusal(
  waiting: Waiting,
  decision: Decision,
  shown: ReadonlyMap<string, Evidence>,
  policy: RunbookPolicy,
  startedBy: string,
): string | undefined {
  if (decision.evidence === undefined) {
    return `The decision carries no evidence hash; look at the gate (mesh runbook status) and send its evidence ${waiting.evidence}.`;
  }
  if (decision.evidence !== waiting.evidence) {
    const before = shown.get(decision.evidence);
    const what = before ? evidenceChange(before, waiting) : 'this runbook never showed that evidence';
    return `Evidence ${decision.evidence} is stale: ${what}. Look again and decide on evidence ${waiting.evidence}.`;
  }
  return policyRefusal(policy, waiting.gate, decision.by, startedBy);
}

/**
 * Decisions arrive as the `decide` Update. Its validator refuses what fits no waiting gate (Temporal keeps no
 * trace of those). Stale evidence and the approver policy are checked once the Update is accepted, so a
 * refused attempt is on record: in the history (the Update's input and its failure) and in `refused`.
 */
export class Decisions {
  private pending: RecordedDecision | undefined;
  /** A signed decision accepted whose signer is being checked against the worker's current signers. */
  private checking: RecordedDecision | undefined;
  private readonly shown = new Map<string, Evidence>();

  /** How old a fleet's approval may be to stand for this runbook's own (policies recorded before: the default). */
  fleetApprovalMaxAgeMs(): number {
    return this.policy?.fleetApprovalMaxAgeMs ?? FLEET_APPROVAL_MAX_AGE_MS;
  }

  /** How long an abort waits for cancelled long work to stop (the policy's cancelledWorkGrace). */
  cancelledWorkGraceMs(): number {
    return this.policy?.cancelledWorkGraceMs ?? CANCELLED_WORK_GRACE_MS;
  }

  /**
   * Why a fleet's approval does not stand for this runbook's own at `gate` under the worker's policy as this
   * runbook read it: its signer's key no longer signs for its giver (revoked since), or the gate takes signed
   * decisions only and it is unsigned. Undefined when it stands.
   */
  fleetApprovalUnfit(approval: FleetApproval, gate: string): string | undefined {
    // Policies recorded before signed decisions name no signers: nothing was signed to check.
    if (!this.policy || (this.policy.signed as RunbookPolicy['signed'] | undefined) === undefined)
      return undefined;
    const given = `The fleet's approval (${approval.gate} of ${approval.runbook}, by ${approval.by})`;
    if (approval.signature === undefined)
      return signedModeAt(this.policy, gate) === 'required'
        ? `${given} is unsigned and ${gate} takes signed decisions only: this node asks its own.`
        : undefined;
    const revoked = revokedSigner(
      { by: approval.by, signature: approval.signature, gate, action: 'approve', at: approval.at },
      this.policy,
    );
    if (revoked === undefined) return undefined;
    const signature = parseSignature(approval.signature);
    const key = typeof signature === 'string' ? 'its key' : `key ${signature.publicKey.fingerprint}`;
    return `${given} no longer stands: ${key} is not among the worker's signers for ${approval.by} any more; this node asks its own.`;
  }

  /** `policy` undefined: a runbook from before evidence and policy, replayed as it ran (no checks, no reminders). */
  constructor(
    private readonly progress: Progress,
    private readonly policy: RunbookPolicy | undefined,
  ) {
    setHandler(
      decideUpdate,
      async (input) => {
        const decision = Decision.parse(input);
        const waiting = this.progress.status.waiting as Waiting;
        const signer = this.policy && signerOf(decision, this.policy, waiting.gate);
        const recorded = {
          ...decision,
          gate: waiting.gate,
          at: new Date().toISOString(),
          ...(signer ? { signer } : {}),
        };
        // Two decisions accepted in one activation: the first one stands, the second is refused on record.
        const busy = this.pending ?? this.checking;
        const taken = busy && misfit(waiting, decision, { decided: [], pending: busy });
        const why =
          taken ||
          (this.policy &&
            refusal(waiting, decision, this.shown, this.policy, this.progress.status.startedBy)) ||
          (signer && (await this.signerNoLonger(recorded, waiting)));
        if (why) {
          this.progress.refuse({ ...recorded, refusal: why });
          reject(why);
        }
        this.pending = recorded;
        return recorded;
      },
      {
        validator: (input) => {
          const parsed = Decision.safeParse(input);
          if (!parsed.success) reject(`The decision is malformed: ${firstIssue(parsed.error).problem}.`);
          const why = misfit(this.progress.status.waiting, parsed.data, {
            currentStep: this.currentStep(),
            decided: this.progress.status.decisions,
            ...((this.pending ?? this.checking) ? { pending: this.pending ?? this.checking } : {}),
          });
          if (why) reject(why);
          const signed = this.policy && this.signatureCheck(parsed.data);
          if (typeof signed === 'string') reject(signed);
        },
        description:
          'Decide at the gate the runbook waits at, with the input its current details show: action, by, evidence, comment.',
      },
    );
  }

  /**
   * Why a signed decision is refused after all: its key left the signers of the worker's current policy
   * since this runbook read its own (a revoked key), or the gate moved while that was asked. Only signed
   * decisions ask, so runbooks recorded before replay without the read.
   */
  private async signerNoLonger(decision: RecordedDecision, waiting: Waiting): Promise<string | undefined> {
    this.checking = decision;
    try {
      const current = await settings.runbookPolicy();
      if (this.progress.status.waiting?.evidence !== waiting.evidence)
        return `The gate ${waiting.gate} moved on while the decision's signer was checked; look again and decide anew.`;
      return revokedSigner(decision, current);
    } catch (error) {
      return `The worker's current signers could not be read (${failureMessage(error)}), so the signed decision is not taken; send it again.`;
    } finally {
      this.checking = undefined;
    }
  }

  /** A signed decision is verified before it is accepted, and one the gate requires signed is refused unsigned. */
  private signatureCheck(decision: Decision) {
    const waiting = this.progress.status.waiting;
    if (!this.policy || !waiting) return undefined;
    const { namespace, workflowId, runId } = workflowInfo();
    return checkSignature(decision, this.policy, {
      namespace,
      runbook: workflowId,
      run: runId,
      gate: waiting.gate,
      nowMs: new Date().getTime(),
    });
  }

  private currentStep(): string | undefined {
    return this.progress.status.steps.find((step) => step.state === 'running')?.name;
  }

  /**
   * Waits, as long as it takes, for a decision at this gate, reminding the operators less and less often;
   * `remindAtOnce`: the wait is news (the evidence changed under an approval), so they are told now too.
   */
  async await(request: WaitingRequest, remindAtOnce = false): Promise<RecordedDecision> {
    const waiting = this.progress.waitFor(request);
    this.shown.set(waiting.evidence, waiting);
    this.pending = undefined;
    if (remindAtOnce && this.policy) await this.remind(waiting);
    await this.untilDecided(waiting);
    const decision = this.pending as unknown as RecordedDecision;
    this.pending = undefined;
    this.progress.resume(decision);
    return decision;
  }

  /**
   * Like `await`, but the wait also ends, undecided, as soon as `over()` holds (a fleet whose waiting node
   * moved on): then it resolves to undefined and no decision fits the gate any more.
   */
  async awaitUnless(
    request: WaitingRequest,
    over: () => boolean,
    remindAtOnce = false,
  ): Promise<RecordedDecision | undefined> {
    const waiting = this.progress.waitFor(request);
    this.shown.set(waiting.evidence, waiting);
    this.pending = undefined;
    if (remindAtOnce && this.policy) await this.remind(waiting);
    await this.untilDecided(waiting, over);
    const decision = this.pending;
    this.pending = undefined;
    if (decision) this.progress.resume(decision);
    else this.progress.leaveWait();
    return decision;
  }

  private async untilDecided(waiting: Waiting, over: () => boolean = () => false): Promise<void> {
    const decided = () => this.pending !== undefined || over();
    if (!this.policy) return condition(decided);
    const summary = `remind the operators if still waiting at ${waiting.gate}`;
    const { afterMs, everyMs } = this.policy.reminders;
    deprecatePatch(REMINDER_BACKOFF);
    let quiet = afterMs;
    let next = everyMs;
    while (!(await condition(decided, quiet, { summary }))) {
      await this.remind(waiting);
      quiet = next;
      next = Math.min(next * 2, everyMs * MAX_REMINDER_BACKOFF);
    }
  }

  private async remind(waiting: Waiting): Promise<void> {
    const reminder = {
      runbookId: workflowInfo().workflowId,
      gate: waiting.gate,
      sentence: waiting.reason,
      actions: waiting.actions,
      evidence: waiting.evidence,
      waitingSince: waiting.since,
      reminder: waiting.reminders + 1,
    };
    try {
      this.progress.reminded(await notify.remindOperators(reminder));
    } catch (error) {
      const message = failureMessage(error);
      log.warn('reminder failed', { gate: waiting.gate, error: message });
      this.progress.reminded(`failed: ${message}`);
    }
  }
}
