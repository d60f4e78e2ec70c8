import { parseArgs } from 'node:util';
import { z } from 'zod';

/** What the bench compares, in the order each round runs them. */
/** `executor-dies`: a successor container is killed inside gate-apply's window; the run must wait there. */
export const CONTENDERS = ['executor', 'executor-leftovers', 'executor-dies', 'shell', 'floor'] as const;
export type ContenderName = (typeof CONTENDERS)[number];

/** `--only` takes contenders and `cli` (the CLI's start-up times). */
const SECTIONS = [...CONTENDERS, 'cli'] as const;
type Section = (typeof SECTIONS)[number];

const QUICK_CONTENDERS: ContenderName[] = ['executor', 'shell', 'floor'];
const QUICK_ROUNDS = 3;
const DEFAULT_ROUNDS = 7;

export const USAGE = `npm run bench -- [--rounds N] [--quick] [--only a,b] [--scale 1,10,50] [--json]

  --rounds N     rounds of every contender, run alternating (default ${DEFAULT_ROUNDS}; ${QUICK_ROUNDS} with --quick)
  --quick        ${QUICK_CONTENDERS.join(', ')} and the CLI, no warm-up run, fewer CLI samples (what CI runs)
  --only LIST    only these of: ${SECTIONS.join(', ')} (comma-separated or repeated)
  --scale LIST   also N edge flips at once on N nodes, for each N (never with --quick)
  --json         one JSON document on stdout instead of the tables

  MESH_BENCH_CLI_BASELINE=<checkout>/bin/mesh.js also times that CLI, alternating with this one`;

const Options = z
  .object({
    rounds: z.coerce.number().int().min(1).optional(),
    quick: z.boolean().default(false),
    only: z.array(z.enum(SECTIONS)).optional(),
    scale: z.array(z.coerce.number().int().min(1).max(200)).default([]),
    json: z.boolean().default(false),
    help: z.boolean().default(false),
  })
  .refine((o) => !(o.quick && o.scale.length > 0), {
    message: '--scale is kept out of --quick',
    path: ['scale'],
  });

export interface BenchOptions {
  rounds: number;
  quick: boolean;
  contenders: ContenderName[];
  cli: boolean;
  /** One unmeasured executor run first, so the worker is warm. */
  warmup: boolean;
  /** Samples per CLI command (the median of these is reported). */
  cliSamples: number;
  scale: number[];
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
      only: { type: 'string', multiple: true },
      scale: { type: 'string', multiple: true },
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
    allowPositionals: false,
  });
  const parsed = Options.safeParse({ ...values, only: list(values.only), scale: list(values.scale) });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`--${issue?.path.join('.') ?? 'options'}: ${issue?.message ?? 'invalid'}`);
  }
  const o = parsed.data;
  const only = o.only ? new Set<Section>(o.only) : undefined;
  const contenders = only
    ? CONTENDERS.filter((name) => only.has(name))
    : o.quick
      ? QUICK_CONTENDERS
      : [...CONTENDERS];
  return {
    rounds: o.rounds ?? (o.quick ? QUICK_ROUNDS : DEFAULT_ROUNDS),
    quick: o.quick,
    contenders,
    cli: only ? only.has('cli') : true,
    warmup: !o.quick,
    cliSamples: o.quick ? 3 : 5,
    scale: o.scale,
    json: o.json,
    help: o.help,
  };
}
