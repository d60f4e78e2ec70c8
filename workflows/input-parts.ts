import { z } from 'zod';

/** The fields every runbook kind's input shares (timings, predictions, fleet approvals, signed starts). */

export const HostName = z
  .string()
  .regex(
    /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/i,
    'not a host name',
  );
export const HttpAddress = z
  .string()
  .regex(/^https?:\/\/[^/\s]+$/, 'an address like http://127.0.0.1:8080 (scheme, host and port, no path)')
  .refine((address) => {
    const port = /:(\d+)$/.exec(address)?.[1];
    return port === undefined || (Number(port) >= 1 && Number(port) <= 65535);
  }, 'its port must be 1 to 65535');

/** An HTTP header name (an RFC 9110 token), e.g. X-Served-By. */
export const HeaderName = z
  .string()
  .max(100)
  .regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, 'an HTTP header name, e.g. X-Served-By');

/** How long a runbook waits for mesh and containers before it asks the operator; tests shorten them. */
export const Timings = z.strictObject({
  applyReportMs: z.number().int().positive().default(60_000),
  healthDeadlineMs: z.number().int().positive().default(60_000),
  stabilityWindowMs: z.number().int().min(0).default(3_000),
  recheckEveryMs: z.number().int().positive().default(2_000),
  probeDeadlineMs: z.number().int().positive().default(30_000),
  /**
   * After the predecessor stopped, how long probe-public waits for anything to take the public port: a
   * successor that has not bound it by then (every connection refused) will not, and the flip rolls back.
   */
  publicBindMs: z.number().int().positive().default(3_000),
  /** A runbook waiting for its locks asks the keeper again after this, doubling (workflows/runbook/locks.ts). */
  lockAskAgainMs: z.number().int().positive().default(60_000),
});
export type Timings = z.infer<typeof Timings>;

/** Gate name → the verdict the plan predicted for it (`ok`, `held`, `drift`, `unrecreated-volume`). */
export const PredictedVerdicts = z.record(z.string().max(64), z.string().max(64));
export type PredictedVerdicts = z.infer<typeof PredictedVerdicts>;

/** An approval given once for a fleet's later nodes: where it was given, by whom, when, on what evidence. */
export const FleetApproval = z.strictObject({
  /** The runbook it was given at: the fleet's (approve-waves) or the canary's (approve-stop-predecessor). */
  runbook: z.string().min(1),
  gate: z.string().min(1),
  by: z.string().min(1),
  at: z.string().min(1),
  evidence: z.string().min(1),
  /** The approval's SSH signature, when signed: a node checks its key still signs for `by`. */
  signature: z.string().optional(),
});
export type FleetApproval = z.infer<typeof FleetApproval>;

/** A start signed by its starter's SSH key (workflows/signing/start-signature.ts): over kind, node, module, input. */
export const SignedStart = z.strictObject({
  signature: z.string().min(1).max(4_000),
  signedAt: z.string().min(1).max(64),
});
