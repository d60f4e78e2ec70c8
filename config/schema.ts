import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { DockerEndpoint } from '../docker/endpoint-config';
import { AbsolutePath, Name } from '../mesh/schemas';
import { RunbookPolicy, SIGNED_MODES } from '../workflows/policy';
import { parseAllowedSigners } from '../workflows/signing/allowed-signers';
import { START } from '../workflows/signing/start-signature';
import { PRODUCT_TIMING_LIMITS } from '../workflows/timing-limits';
import { Duration } from './duration';
import { fourEyesFile, knownGate } from './four-eyes';
import { WebhookConfig } from './webhook';

/** `host:port` as gRPC dials it (no scheme): `temporal.example.com:7233`, `10.0.0.5:7233`, `[::1]:7233`. */
export const HostPort = z
  .string()
  .regex(
    /^(\[[0-9a-fA-F:.]+\]|[^\s:/[\]]+):\d{1,5}$/,
    'an address like temporal.example.com:7233 (no scheme)',
  );

const Pem = z.string().includes('-----BEGIN', { message: 'PEM text (-----BEGIN ...)' });

/** Temporal TLS as envconfig names it, in camelCase; each PEM as a file path or inline data. */
export const TemporalTlsFile = z
  .strictObject({
    disabled: z.boolean().optional(),
    /** The name the server certificate carries, when the address is not it (server name override). */
    serverName: z.string().min(1).optional(),
    serverCaCertPath: AbsolutePath.optional(),
    serverCaCertData: Pem.optional(),
    clientCertPath: AbsolutePath.optional(),
    clientCertData: Pem.optional(),
    clientKeyPath: AbsolutePath.optional(),
    clientKeyData: Pem.optional(),
  })
  .superRefine((tls, ctx) => {
    for (const pem of ['serverCaCert', 'clientCert', 'clientKey'] as const) {
      if (tls[`${pem}Path`] !== undefined && tls[`${pem}Data`] !== undefined)
        ctx.addIssue({
          code: 'custom',
          path: [`${pem}Data`],
          message: `give ${pem}Path or ${pem}Data, not both`,
        });
    }
  });
export type TemporalTlsFile = z.infer<typeof TemporalTlsFile>;

export const TemporalFile = z.strictObject({
  address: HostPort.optional(),
  namespace: z.string().min(1).optional(),
  apiKey: z.string().min(1).optional(),
  /** `true`: TLS with the system's CAs; `false`: plain; or the TLS settings. */
  tls: z.union([z.boolean(), TemporalTlsFile]).optional(),
  /** Extra gRPC headers sent with every call. */
  grpcMeta: z.record(z.string().min(1), z.string()).optional(),
});
export type TemporalFile = z.infer<typeof TemporalFile>;

export const MeshFile = z.strictObject({
  adapter: z.enum(['local', 'command']).optional(),
  /** The local reference mesh's state dir (adapter local). */
  localState: AbsolutePath.optional(),
  /** The command adapter's config (adapter command): its JSON file, or the same object inline. */
  command: z.union([AbsolutePath, z.record(z.string(), z.unknown())]).optional(),
});
export type MeshFile = z.infer<typeof MeshFile>;

/** The default for every node not listed; like the policy's approvers. */
export const ANY_NODE = '*';

const NodeKey = z
  .string()
  .refine(
    (key) => key === ANY_NODE || Name.safeParse(key).success,
    `a node name, or ${ANY_NODE} for every other node`,
  );

/** Node name (or `*`) → how the worker reaches that node's Docker engine. */
export const NodesFile = z.record(NodeKey, DockerEndpoint);

const Reminders = z
  .strictObject({
    after: Duration.optional(),
    every: Duration.optional(),
    afterMs: z.number().int().positive().optional(),
    everyMs: z.number().int().positive().optional(),
  })
  .superRefine((reminders, ctx) => {
    for (const [human, ms] of [
      ['after', 'afterMs'],
      ['every', 'everyMs'],
    ] as const) {
      if (reminders[human] !== undefined && reminders[ms] !== undefined)
        ctx.addIssue({ code: 'custom', path: [ms], message: `give ${human} or ${ms}, not both` });
    }
  })
  .transform(({ after, every, afterMs, everyMs }) => ({
    afterMs: after ?? afterMs,
    everyMs: every ?? everyMs,
  }));

const KnownGate = knownGate();

/** A bound of the timings a runbook's input may set, as a person writes it: `3s`, `1m`, or 0. */
const TimingBound = z.union([z.literal(0), Duration]);
const TIMING_KEYS = [
  'applyReport',
  'healthDeadline',
  'stabilityWindow',
  'recheckEvery',
  'probeDeadline',
  'lockAskAgain',
] as const;
const TimingBounds = z.partialRecord(z.enum(TIMING_KEYS), TimingBound);

/** `timings: { least: { stabilityWindow: 3s }, most: { probeDeadline: 1m } }` over the product's limits. */
const TimingsFile = z
  .strictObject({ least: TimingBounds.optional(), most: TimingBounds.optional() })
  .transform(({ least, most }) => ({
    least: { ...PRODUCT_TIMING_LIMITS.least, ...inMs(least) },
    most: { ...PRODUCT_TIMING_LIMITS.most, ...inMs(most) },
  }));

function inMs(bounds: Partial<Record<(typeof TIMING_KEYS)[number], number>> = {}) {
  return Object.fromEntries(Object.entries(bounds).map(([key, ms]) => [`${key}Ms`, ms]));
}

/** A gate of a plan, or the start itself (signed: a start signed by its starter's key). */
const SignedKey = z.union([z.literal('*'), z.literal(START), KnownGate]);

export const PolicyFile = z
  .strictObject({
    approvers: z
      .record(z.union([z.literal('*'), KnownGate]), RunbookPolicy.shape.approvers.unwrap().valueType)
      .optional(),
    fourEyes: fourEyesFile().optional(),
    reminders: Reminders.optional(),
    stalledAfter: Duration.optional(),
    stalledAfterMs: z.number().int().positive().optional(),
    /** How long an abort waits for a cancelled copy, verify or catch-up to stop before the undo goes on. */
    cancelledWorkGrace: Duration.optional(),
    /** allowed_signers lines (`carol ssh-ed25519 AAAA…`), or the file holding them: who may sign decisions. */
    signers: z.array(z.string().min(1)).optional(),
    allowedSignersFile: AbsolutePath.optional(),
    signed: z.record(SignedKey, z.enum(SIGNED_MODES)).optional(),
    /** Bounds on the timings a runbook's input may set; the product's limits where unnamed. */
    timings: TimingsFile.optional(),
    signatureMaxAge: Duration.optional(),
    fleetApprovalMaxAge: Duration.optional(),
  })
  .superRefine((policy, ctx) => {
    if (policy.stalledAfter !== undefined && policy.stalledAfterMs !== undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['stalledAfterMs'],
        message: 'give stalledAfter or stalledAfterMs, not both',
      });
  })
  .transform(
    (
      {
        stalledAfter,
        stalledAfterMs,
        signers,
        allowedSignersFile,
        signatureMaxAge,
        fleetApprovalMaxAge,
        cancelledWorkGrace,
        timings,
        ...policy
      },
      ctx,
    ) => {
      const text = signersText(signers, allowedSignersFile);
      const problem = 'problem' in text ? text.problem : signersProblem(text.text);
      if (problem !== undefined) {
        ctx.addIssue({
          code: 'custom',
          path: [allowedSignersFile ? 'allowedSignersFile' : 'signers'],
          message: problem,
        });
        return z.NEVER;
      }
      return RunbookPolicy.parse({
        ...policy,
        stalledAfterMs: stalledAfter ?? stalledAfterMs,
        signers: 'text' in text ? text.text : '',
        ...(signatureMaxAge !== undefined ? { signatureMaxAgeMs: signatureMaxAge } : {}),
        ...(fleetApprovalMaxAge !== undefined ? { fleetApprovalMaxAgeMs: fleetApprovalMaxAge } : {}),
        ...(cancelledWorkGrace !== undefined ? { cancelledWorkGraceMs: cancelledWorkGrace } : {}),
        ...(timings !== undefined ? { timingLimits: timings } : {}),
      });
    },
  );

/** The allowed signers from the config: inline lines, or the file's text (never both). */
function signersText(
  lines: string[] | undefined,
  file: string | undefined,
): { text: string } | { problem: string } {
  if (lines !== undefined && file !== undefined)
    return { problem: 'give signers or allowedSignersFile, not both' };
  if (file === undefined) return { text: (lines ?? []).join('\n') };
  try {
    return { text: readFileSync(file, 'utf8') };
  } catch (error) {
    return { problem: `cannot read ${file}: ${error instanceof Error ? error.message : String(error)}` };
  }
}

function signersProblem(text: string): string | undefined {
  const parsed = parseAllowedSigners(text);
  return 'problem' in parsed ? parsed.problem : undefined;
}

export const NotifierFile = z.strictObject({ webhook: WebhookConfig.strict() });

export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error'] as const;
export const LogFile = z.strictObject({ level: z.enum(LOG_LEVELS).default('info') });

/** The mesh config file (YAML or JSON): every section optional; the environment overrides it. */
export const MeshConfigFile = z.strictObject({
  temporal: TemporalFile.default({}),
  mesh: MeshFile.default({}),
  nodes: NodesFile.default({}),
  policy: PolicyFile.prefault({}),
  notifier: NotifierFile.optional(),
  log: LogFile.prefault({}),
});
export type MeshConfigFile = z.output<typeof MeshConfigFile>;
