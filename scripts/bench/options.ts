import { parseArgs } from 'node:util';
import { z } from 'zod';

/** What the bench compares, in the order each round runs them. */
/** `executor-dies`: a successor container is killed inside gate-apply's window; the run must wait there. */
/** `lab-executor`, `lab-shell`: the executor and the shell flip on the production-shaped lab (scripts/lab/). */
export const CONTENDERS = [
  'executor',
  'executor-leftovers',
  'executor-dies',
  'shell',
  'floor',
  'lab-executor',
  'lab-shell',
] as const;
export type ContenderName = (typeof CONTENDERS)[number];

/** The contenders that run on the lab rather than on the bench's own dev server. */
export const onLab = (contender: ContenderName) => contender.startsWith('lab-');

/**
 * `--only` takes contenders, `cli` (the CLI's start-up times) and `dark-edge` (a failed probe-public's
 * rollback timed with the controller answering and not answering).
 */
const SECTIONS = [...CONTENDERS, 'cli', 'dark-edge'] as const;
type Section = (typeof SECTIONS)[number];

const QUICK_CONTENDERS: ContenderName[] = ['executor', 'shell', 'floor'];
/** `--lab`: the dev server's executor and shell beside the same two on the lab. */
const LAB_CONTENDERS: ContenderName[] = ['executor', 'shell', 'lab-executor', 'lab-shell'];
const QUICK_ROUNDS = 3;
const DEFAULT_ROUNDS = 7;

export const USAGE = `npm run bench -- [--rounds N] [--quick] [--lab] [--only a,b] [--scale 1,10,50] [--fleet 10,100] [--json]

  --rounds N     rounds of every contender, run alternating (default ${DEFAULT_ROUNDS}; ${QUICK_ROUNDS} with --quick)
  --quick        ${QUICK_CONTENDERS.join(', ')} and the CLI, no warm-up run, fewer CLI samples, no dark edge (what CI runs)
  --lab          ${LAB_CONTENDERS.join(', ')}: the dev server beside the production-shaped lab
                 (scripts/lab/up.sh), side by side; no CLI unless --only names it
  --only LIST    only these of: ${SECTIONS.join(', ')} (comma-separated or repeated)
  --scale LIST   also N edge flips at once on N nodes, for each N (never with --quick)
  --fleet LIST   a fleet runbook over N simulated nodes, for each N (2 to 2000; never with --quick);
                 with --lab on the lab's Temporal too, the two side by side; alone, nothing else runs
                 unless --only names it
  --json         one JSON document on stdout instead of the tables

  MESH_BENCH_CLI_BASELINE=<checkout>/bin/mesh.js also times that CLI, alternating with this one`;

const FLEET_SIZE = 'each fleet size is a whole number of nodes from 2 (a canary and a wave) to 2000';

const Options = z
  .object({
    rounds: z.coerce.number().int().min(1).optional(),
    quick: z.boolean().default(false),
    lab: z.boolean().default(false),
    only: z.array(z.enum(SECTIONS)).optional(),
    scale: z.array(z.coerce.number().int().min(1).max(200)).default([]),
    fleet: z
      .array(z.coerce.number({ error: FLEET_SIZE }).int(FLEET_SIZE).min(2, FLEET_SIZE).max(2000, FLEET_SIZE))
      .default([]),
    json: z.boolean().default(false),
    help: z.boolean().default(false),
  })
  .refine((o) => !(o.quick && o.scale.length > 0), {
    message: '--scale is kept out of --quick',
    path: ['scale'],
  })
  .refine((o) => !(o.quick && o.fleet.length > 0), {
    message: '--fleet is kept out of --quick',
    path: ['fleet'],
  });

export interface BenchOptions {
  rounds: number;
  quick: boolean;
  /** Some contender, or the fleet, runs on the lab. */
  lab: boolean;
  contenders: ContenderName[];
  cli: boolean;
  darkEdge: boolean;
  /** One unmeasured executor run first, so the worker is warm. */
  warmup: boolean;
  /** Samples per CLI command (the median of these is reported). */
  cliSamples: number;
  scale: number[];
  /** Fleet sizes, each a fleet runbook over that many simulated nodes (scripts/bench/fleet.ts), with --lab on both servers. */
  fleet: number[];
  json: boolean;
  help: boolean;
}

const list = (values: string[] | undefined) =>
  values?.flatMap((value) => value.split(',').map((part) => part.trim())).filter((part) => part !== '');

/** The bench's options from argv; throws a one-sentence error for anything it does not understand. */
export function parseBenchOptions(argv: string[]): BenchOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      rounds: { type: 'string' },
      quick: { type: 'boolean' },
      lab: { type: 'boolean' },
      only: { type: 'string', multiple: true },
      scale: { type: 'string', multiple: true },
      fleet: { type: 'string', multiple: true },
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
    allowPositionals: false,
  });
  const parsed = Options.safeParse({
    ...values,
    only: list(values.only),
    scale: list(values.scale),
    fleet: list(values.fleet),
  });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    // `--fleet: ...`, not `--fleet.0: ...`: the option is what the user typed.
    const option = issue?.path.filter((part) => typeof part === 'string').join('.') || 'options';
    throw new Error(`--${option}: ${issue?.message ?? 'invalid'}`);
  }
  const o = parsed.data;
  // --fleet alone measures the fleet alone: the edge-flip rounds are for --only to add.
  const only = o.only ? new Set<Section>(o.only) : o.fleet.length > 0 ? new Set<Section>() : undefined;
  const contenders = only
    ? CONTENDERS.filter((name) => only.has(name))
    : o.lab
      ? LAB_CONTENDERS
      : o.quick
        ? QUICK_CONTENDERS
        : CONTENDERS.filter((name) => !onLab(name));
  const named = contenders.filter(onLab);
  const lab = named.length > 0 || (o.lab && o.fleet.length > 0);
  if (lab && !o.lab)
    throw new Error(
      `--only: ${named.join(' and ')} ${named.length === 1 ? 'runs' : 'run'} on the lab: add --lab`,
    );
  return {
    rounds: o.rounds ?? (o.quick ? QUICK_ROUNDS : DEFAULT_ROUNDS),
    quick: o.quick,
    lab,
    contenders,
    cli: only ? only.has('cli') : !o.lab,
    darkEdge: only ? only.has('dark-edge') : !o.lab && !o.quick,
    warmup: !o.quick,
    cliSamples: o.quick ? 3 : 5,
    scale: o.scale,
    fleet: o.fleet,
    json: o.json,
    help: o.help,
  };
}
