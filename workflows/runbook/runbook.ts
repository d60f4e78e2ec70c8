import { CancellationScope, deprecatePatch, isCancellation, patched } from '@temporalio/workflow';
import type {
  FleetApproval,
  PredictedVerdicts,
  RecordedDecision,
  RunbookStatus,
  WaitingVerdict,
} from '../contracts';
import type { Compensations } from './compensation';
import type { Decisions } from './decisions';
import type { Pauses } from './pauses';
import { evidenceHash } from './evidence';
import { abortedBy, failureMessage, isAbort, isRefusal, isRollBack } from './failures';
import type { ActionAt, ApprovalName, GateName, RunbookPlan, StepName, UndoName } from './plan';
import { plannedStep } from './plan';
import type { Progress, WaitingRequest } from './progress';
import {
  FLEET_APPROVAL_EXPIRES,
  GATES_WATCH_CONTAINERS,
  OFFER_RECHECK,
  PREFLIGHT_REFUSAL_ENDS,
  TRUSTED_INPUT,
} from './revision';
import { PREFLIGHT } from './step-declarations';
import { pausedWatch } from './watch';

/** What an approval offers: `offer` narrows its planned actions, `facts` adds to the evidence so far. */
interface ApprovalOptions<A> {
  offer?: readonly A[];
  facts?: string[];
}

/** What a gate's check found: ok (the runbook moves on), or what to show the operator while it waits. */
export type Look =
  | {
      ok: true;
      note: string;
      /** Judged for its own module only: what the node says of other modules, left alone. */
      elsewhere?: string[];
    }
  | {
      ok: false;
      /** One line for the step list. */
      note: string;
      verdict: WaitingVerdict;
      /** One sentence an operator can act on. */
      reason: string;
      /** What the evidence allows; the runbook offers those the plan and the handlers also have. */
      actions: readonly string[];
      facts: string[];
    };

/** What the runbook does for each action at a gate; `abort` and `recheck` need none. */
export type GateHandlers<A extends string> = Partial<
  Record<Exclude<A, 'abort' | 'recheck'>, () => Promise<unknown>>
>;

/**
 * A runbook's vocabulary: `step`, `gate`, `approve`, `undo`, `skip`, `done`. Names come from the runbook's
 * plan, so the compiler refuses a step, gate, action or undo the plan does not declare.
 */
export class Runbook<P extends RunbookPlan> {
  /** Each gate that was ok at its first look, with the hash of what that look saw. */
  private readonly okAtFirstLook = new Map<string, string>();

  constructor(
    private readonly plan: P,
    private readonly progress: Progress,
    private readonly decisions: Decisions,
    private readonly compensations: Compensations,
    private readonly predicted: PredictedVerdicts = {},
    private readonly pauses?: Pauses,
  ) {}

  /**
   * A step boundary before `name`: a pause in force holds here, except where the plan keeps going through
   * (noPauseBefore) and while undo steps run. Nothing is awaited unless it holds.
   */
  private boundary(name: string): Promise<void> | undefined {
    if (!this.pauses?.inForce() || this.compensations.unwinding) return undefined;
    return this.pauses.hold(name, plannedStep(this.plan, name)?.noPauseBefore);
  }

  /** Runs one named step. A failed activity waits for retry or abort: nothing moves on, nothing fails silently. */
  async step<T>(name: StepName<P>, run: () => Promise<T>, note?: (result: T) => string): Promise<T> {
    const result = await this.attempt(name, run);
    this.progress.mark(name, 'done', note?.(result));
    return result;
  }

  /**
   * Runs a step whose failure may also be answered with `instead` (keep at remove-old-data) besides retry and
   * abort: resolves to who chose it when the operator took that road, the step then marked skipped.
   */
  async stepOr<T>(
    name: StepName<P>,
    run: () => Promise<T>,
    note: (result: T) => string,
    instead: { action: string; says: string; skipped: string },
  ): Promise<{ done: T } | { instead: string }> {
    const result = await this.attempt(name, run, instead);
    if (result instanceof InsteadTaken) {
      this.progress.mark(name, 'skipped', `${instead.skipped} (${instead.action} by ${result.by})`);
      return { instead: result.by };
    }
    this.progress.mark(name, 'done', note(result));
    return { done: result };
  }

  /**
   * Checks until the evidence is ok; otherwise waits for the operator's decision, acts on it, checks again.
   * Resolves to whether it had to wait: the evidence was not ok at the first look.
   */
  async gate<G extends GateName<P>>(
    name: G,
    check: () => Promise<Look>,
    handlers: GateHandlers<ActionAt<P, G>>,
    options: {
      /** What changed under the approval before this gate: shown with its first look, told at once if it waits. */
      changed?: string;
      /**
       * Resolves, in one sentence, once the containers its look rests on change: the wait then ends
       * undecided and the gate looks again (GATES_WATCH_CONTAINERS); see watchPause.
       */
      watch?: () => Promise<string>;
    } = {},
  ): Promise<boolean> {
    const allowed: readonly string[] = plannedStep(this.plan, name)?.actions ?? [];
    const act = handlers as Partial<Record<string, () => Promise<unknown>>>;
    let change =
      options.changed === undefined ? undefined : `changed while the approval waited: ${options.changed}`;
    let changes = 0;
    let watchedLook = false;
    for (let waited = false; ; waited = true) {
      const looked = againstPrediction(await this.attempt(name, check), this.predicted[name], waited);
      const found = change !== undefined ? withChange(looked, change) : looked;
      // A look its watch caused never passes the gate alone: the operator rechecks (the gate rule).
      const look = found.ok && watchedLook ? okNow(found) : found;
      if (look.ok) {
        if (!waited) this.okAtFirstLook.set(name, okLookHash(name, look));
        this.progress.mark(name, 'done', look.note);
        return waited;
      }
      this.progress.mark(name, 'waiting', look.note);
      // Looking again is always an answer where the plan allows it: the operator may have fixed it by hand.
      let candidates = look.actions;
      if (allowed.includes('recheck')) {
        deprecatePatch(OFFER_RECHECK);
        candidates = withRecheck(look.actions);
      }
      const offered = candidates.filter(
        (a) => allowed.includes(a) && (a === 'abort' || a === 'recheck' || act[a] !== undefined),
      );
      const request = {
        gate: name,
        verdict: look.verdict,
        reason: look.reason,
        actions: offered,
        facts: look.facts,
      };
      const told = change !== undefined;
      change = undefined;
      watchedLook = false;
      const { watch } = options;
      let decision: RecordedDecision;
      if (watch) {
        deprecatePatch(GATES_WATCH_CONTAINERS);
        const answer = await this.awaitWatching(request, pausedWatch(changes, watch), told);
        if ('changed' in answer) {
          change = `changed while ${name} waited: ${answer.changed}`;
          changes += 1;
          watchedLook = true;
          continue;
        }
        decision = answer;
      } else decision = await this.decisions.await(request, told);
      if (decision.action === 'abort') throw abortedBy(decision.by, name);
      await act[decision.action]?.();
    }
  }

  /**
   * Waits for a decision while `watch` runs; resolves to the decision, or (when `watch` resolves first) to
   * what changed, the wait then left undecided: no decision fits it any more.
   */
  private async awaitWatching(
    request: WaitingRequest,
    watch: () => Promise<string>,
    remindAtOnce: boolean,
  ): Promise<RecordedDecision | { changed: string }> {
    let changed: string | undefined;
    const scope = new CancellationScope();
    const watching = scope.run(watch).then(
      (change) => void (changed = change),
      (error: unknown) => {
        if (!isCancellation(error)) throw error;
      },
    );
    const decision = await this.decisions.awaitUnless(request, () => changed !== undefined, remindAtOnce);
    scope.cancel();
    await watching;
    return decision ?? { changed: changed as string };
  }

  /**
   * Waits for an operator's yes (or another of the approval's actions) with the evidence gathered so far;
   * `offer` narrows the actions to those the evidence allows now, `facts` adds to them what the operator must see.
   */
  async approve<G extends ApprovalName<P>>(
    gate: G,
    reason: string,
    options: ApprovalOptions<ActionAt<P, G>> = {},
  ): Promise<Exclude<ActionAt<P, G>, 'abort'>> {
    const held = this.boundary(gate);
    if (held) await held;
    const decision = await this.decisions.await(this.approvalRequest(gate, reason, options));
    return this.approved(gate, decision);
  }

  private approvalRequest<G extends ApprovalName<P>>(
    gate: G,
    reason: string,
    options: ApprovalOptions<ActionAt<P, G>>,
  ): WaitingRequest {
    const planned: readonly string[] = plannedStep(this.plan, gate)?.actions ?? [];
    return {
      gate,
      verdict: 'approval',
      reason,
      actions: planned.filter((a) => !options.offer || (options.offer as readonly string[]).includes(a)),
      ...(options.facts ? { facts: [...this.progress.evidenceSoFar(), ...options.facts] } : {}),
    };
  }

  /** An approval's decision carried out: abort throws, any other action marks the approval done by whom. */
  private approved<G extends ApprovalName<P>>(
    gate: G,
    decision: RecordedDecision,
  ): Exclude<ActionAt<P, G>, 'abort'> {
    if (decision.action === 'abort') throw abortedBy(decision.by, gate);
    const by =
      decision.action === 'approve' ? `approved by ${decision.by}` : `${decision.action} by ${decision.by}`;
    this.progress.mark(gate, 'done', by);
    return decision.action as Exclude<ActionAt<P, G>, 'abort'>;
  }

  /**
   * An approval with one action left, taken by the runbook itself where a wait for a person would change
   * nothing but prolong an outage: marked done with why; no decision is recorded (nobody decided).
   */
  takeOnlyAction<G extends ApprovalName<P>, A extends Exclude<ActionAt<P, G>, 'abort'>>(
    gate: G,
    action: A,
    why: string,
  ): A {
    this.progress.mark(gate, 'done', `${action}, without asking: ${why}`);
    return action;
  }

  /**
   * Takes a fleet's approval for this one when every gate in `gates` was ok at its first look: the approval
   * is marked done by its giver and recorded as their decision, with the hashes of those looks. False (and
   * nothing recorded) when any of them waited: the node then asks its own approval.
   */
  approvedByFleet<G extends ApprovalName<P>>(
    gate: G,
    approval: FleetApproval,
    gates: readonly GateName<P>[],
    action: ActionAt<P, G> | 'approve' = 'approve',
  ): boolean | { expired: string } {
    const looks = gates.map((name) => ({ name, hash: this.okAtFirstLook.get(name) }));
    if (looks.some((look) => look.hash === undefined)) return false;
    const ageMs = new Date().getTime() - Date.parse(approval.at);
    const mostMs = this.decisions.fleetApprovalMaxAgeMs();
    if (ageMs > mostMs) {
      deprecatePatch(FLEET_APPROVAL_EXPIRES);
      return {
        expired: `The fleet's approval (${approval.gate} of ${approval.runbook}, by ${approval.by} at ${approval.at}) is ${duration(ageMs)} old, older than the policy's fleetApprovalMaxAge (${duration(mostMs)}): this node asks its own.`,
      };
    }
    const unfit = this.decisions.fleetApprovalUnfit(approval, gate);
    if (unfit !== undefined && patched(TRUSTED_INPUT)) return { expired: unfit };
    const rested = looks.map((look) => `${look.name} ${look.hash}`).join(', ');
    const given = `${approval.gate} of ${approval.runbook}`;
    this.progress.recordDecision({
      gate,
      action,
      by: approval.by,
      evidence: approval.evidence,
      comment: `the fleet's approval (${given}); ok at first look: ${rested}`,
      at: approval.at,
    });
    this.progress.mark(
      gate,
      'done',
      `approved for the fleet by ${approval.by} (${given}, evidence ${approval.evidence}); ok at first look: ${rested}`,
    );
    return true;
  }

  /**
   * Like `approve`, while `watch` follows what the approval rests on. Once `watch` resolves (the evidence
   * changed), the approval ends undecided (no decision fits it any more) and resolves to that change.
   */
  async approveWatching<G extends ApprovalName<P>>(
    gate: G,
    reason: string,
    watch: () => Promise<string>,
    options: ApprovalOptions<ActionAt<P, G>> & {
      /** The ask is news (asked anew because its evidence changed): the operators are told at once. */
      remindAtOnce?: boolean;
    } = {},
  ): Promise<{ action: Exclude<ActionAt<P, G>, 'abort'> } | { changed: string }> {
    const held = this.boundary(gate);
    if (held) await held;
    const request = this.approvalRequest(gate, reason, options);
    const answer = await this.awaitWatching(request, watch, options.remindAtOnce ?? false);
    if ('changed' in answer) {
      this.progress.mark(
        gate,
        'pending',
        `not decided: the evidence changed while it waited (${answer.changed})`,
      );
      return answer;
    }
    return { action: this.approved(gate, answer) };
  }

  /**
   * Registers a side effect's named inverse, before the side effect; `forget` drops it past a point of no
   * return. The inverse may resolve to a note for its step (what it left alone).
   */
  undo(name: UndoName<P>, inverse: () => Promise<string | void>): { forget(): void; runLast(): void } {
    this.compensations.push(name, inverse);
    return {
      forget: () => this.compensations.forget(name),
      runLast: () => this.compensations.runLast(name),
    };
  }

  /** Says where a running step (or undo step) stands while it waits for something that is not a decision. */
  tell(name: StepName<P> | UndoName<P>, note: string): void {
    this.progress.mark(name, 'running', note);
  }

  /** How long an abort waits for a cancelled copy, verify or catch-up to stop (the worker's policy). */
  cancelledWorkGraceMs(): number {
    return this.decisions.cancelledWorkGraceMs();
  }

  skip(name: StepName<P>, why: string): void {
    this.progress.mark(name, 'skipped', why);
  }

  done(summary: string): RunbookStatus {
    this.progress.end('completed', summary);
    return this.progress.status;
  }

  private async attempt<T>(name: string, run: () => Promise<T>): Promise<T>;
  private async attempt<T>(
    name: string,
    run: () => Promise<T>,
    instead: { action: string; says: string },
  ): Promise<T | InsteadTaken>;
  private async attempt<T>(
    name: string,
    run: () => Promise<T>,
    instead?: { action: string; says: string },
  ): Promise<T | InsteadTaken> {
    const held = this.boundary(name);
    if (held) await held;
    for (;;) {
      this.progress.mark(name, 'running');
      try {
        return await run();
      } catch (error) {
        if (isAbort(error)) throw error;
        if (isRollBack(error) || endsAtPreflight(name, error)) {
          this.progress.mark(name, 'failed', failureMessage(error));
          throw error;
        }
        const message = failureMessage(error);
        const decision = await this.decisions.await({
          gate: name,
          verdict: 'failed',
          reason: `Step ${name} failed: ${message.replace(/\.?$/, '')}; retry runs it again, ${instead ? `${instead.says}, ` : ''}abort undoes what the runbook did.`,
          actions: instead ? ['retry', instead.action, 'abort'] : ['retry', 'abort'],
          facts: [message],
        });
        if (decision.action === 'abort') throw abortedBy(decision.by, name);
        if (instead && decision.action === instead.action) return new InsteadTaken(decision.by);
      }
    }
  }
}

class InsteadTaken {
  constructor(readonly by: string) {}
}

/** The hash of an ok look, as a wait's evidence hash is made: the same look, the same hash. */
function okLookHash(gate: string, look: Extract<Look, { ok: true }>): string {
  return evidenceHash({ gate, verdict: 'ok', reason: look.note, actions: [], facts: look.elsewhere ?? [] });
}

/** An ok look a gate's watch caused: the gate waits for a recheck, saying it looks ok now. */
function okNow(look: Extract<Look, { ok: true }>): Look {
  return {
    ok: false,
    note: `ok now, waiting for a recheck: ${look.note}`,
    verdict: 'ok',
    reason: `It looks ok now: ${look.note}. Recheck goes on, abort undoes what the runbook did.`,
    actions: ['recheck', 'abort'],
    facts: [look.note, ...(look.elsewhere ?? [])],
  };
}

/** A gate's first look since its evidence changed under a wait: it says what changed. */
function withChange(look: Look, fact: string): Look {
  if (look.ok) return { ...look, note: `${look.note} (${fact})` };
  return { ...look, reason: `${look.reason} (It ${fact}.)`, facts: [...look.facts, fact] };
}

/** A refusal at preflight ends the runbook failed: nothing has changed yet, nobody need decide. */
function endsAtPreflight(step: string, error: unknown): boolean {
  if (step !== PREFLIGHT || !isRefusal(error)) return false;
  deprecatePatch(PREFLIGHT_REFUSAL_ENDS);
  return true;
}

/** The verdict's actions with `recheck` among them, before `abort`, which stays last. */
function withRecheck(actions: readonly string[]): string[] {
  if (actions.includes('recheck')) return [...actions];
  const rest = actions.filter((a) => a !== 'abort');
  return [...rest, 'recheck', ...(actions.includes('abort') ? ['abort'] : [])];
}

/**
 * A gate's first look, compared with what the plan predicted at the start: where they differ, the sentence
 * says so (the node changed since, or the plan could not know). Later looks follow the operator's action.
 */
function againstPrediction(look: Look, predicted: string | undefined, waited: boolean): Look {
  const verdict = look.ok ? 'ok' : look.verdict;
  if (predicted === undefined || waited) return look;
  if (predicted === verdict)
    return look.ok
      ? look
      : { ...look, facts: [...look.facts, `as the plan predicted at the start: ${predicted}`] };
  const differs = `the plan predicted ${predicted} at the start, the node says ${verdict} now`;
  if (look.ok) return { ...look, note: `${look.note} (${differs})` };
  return {
    ...look,
    note: `${look.note} (${differs})`,
    reason: `${look.reason} Unlike the plan: ${differs}.`,
    facts: [...look.facts, `unlike the plan: ${differs}`],
  };
}

/** A duration as an operator reads it: seconds, minutes up to two hours, then hours. */
function duration(ms: number): string {
  if (ms < 120_000) return `${Math.round(ms / 1_000)} s`;
  if (ms < 2 * 3_600_000) return `${Math.round(ms / 60_000)} min`;
  return `${Math.round(ms / 3_600_000)} h`;
}
