import { z } from 'zod';
import { FOUR_EYES_GATES } from './plans';
import { TimingLimits } from './timing-limits';

/** required: an unsigned decision is refused; optional: a signature is verified when present; off: ignored. */
export const SIGNED_MODES = ['required', 'optional', 'off'] as const;
export type SignedMode = (typeof SIGNED_MODES)[number];

/**
 * Who may decide, and when to remind: from the worker's config (never from whoever starts a runbook),
 * read once by each runbook at its start so the policy it ran under is in its history.
 */
/** A fleet's approval stands for its later nodes this long by default: a working day and a night. */
export const FLEET_APPROVAL_MAX_AGE_MS = 24 * 3_600_000;

/** How long an abort waits by default for a cancelled copy, verify or catch-up to stop. */
export const CANCELLED_WORK_GRACE_MS = 60_000;

export const RunbookPolicy = z.object({
  /** Gate name → the identities allowed to decide there; `*` applies to every gate not listed. None: anyone. */
  approvers: z.record(z.string().min(1), z.array(z.string().min(1)).min(1)).default({}),
  /** Gates where the approver must not be the identity that started the runbook; by default the plans' own. */
  fourEyes: z.array(z.string().min(1)).default(() => [...FOUR_EYES_GATES]),
  reminders: z
    .object({
      /** How long a gate waits before the first reminder. */
      afterMs: z
        .number()
        .int()
        .positive()
        .default(15 * 60_000),
      /** How long after the first reminder it reminds again; each later gap doubles, up to 48 times this. */
      everyMs: z
        .number()
        .int()
        .positive()
        .default(30 * 60_000),
    })
    .prefault({}),
  /**
   * How long a copy, verify or catch-up may make no progress, while its worker still beats for it, before
   * the runbook shows it as stalled and reminds the operators (read by each worker, for its activities).
   */
  stalledAfterMs: z
    .number()
    .int()
    .positive()
    .default(10 * 60_000),
  /**
   * How long an abort waits for a cancelled copy, verify or catch-up to stop (it stops within a heartbeat or
   * two, once the files in flight are written). One hung in the node's file system (a frozen or network
   * mount) never does: past this the undo goes on, the module starts again on A, and only the removal of B
   * waits until the work has ended.
   */
  cancelledWorkGraceMs: z.number().int().positive().default(CANCELLED_WORK_GRACE_MS),
  /** The allowed_signers file's text (principal → SSH key) signed decisions are verified against. */
  signers: z.string().default(''),
  /** Gate (or `*`) → whether a decision there must be signed; `optional` where unnamed (verified when signed). */
  signed: z.record(z.string().min(1), z.enum(SIGNED_MODES)).default({}),
  /**
   * How old a fleet's approval may be when a later node would stop its predecessor on it; an older one (a
   * fleet paused for a day) makes the node ask its own approval.
   */
  fleetApprovalMaxAgeMs: z.number().int().positive().default(FLEET_APPROVAL_MAX_AGE_MS),
  /**
   * The shortest and longest timings a runbook's input may set (workflows/timing-limits.ts); absent: the
   * product's limits. A worker whose operator lets tests shorten windows says so here.
   */
  timingLimits: TimingLimits.optional(),
  /** How old a decision's signature may be when it arrives. */
  signatureMaxAgeMs: z
    .number()
    .int()
    .positive()
    .default(15 * 60_000),
});
export type RunbookPolicy = z.infer<typeof RunbookPolicy>;
export type RunbookPolicyInput = z.input<typeof RunbookPolicy>;
