export const EXPERIMENTS = [
  'worker-kill',
  'server-restart',
  'hostile-mesh-input',
  'bad-operator-input',
  'concurrent-starts',
  'late-decisions',
  'docker-restart',
  'long-waits',
  'terminal-dies',
  'two-workers',
  'reset',
  'keeper-lost',
  'crossed-probes',
  'forged-starts',
] as const;
export type ExperimentName = (typeof EXPERIMENTS)[number];

/** `--lab`: faults of the production-shaped lab's own parts (scripts/chaos/lab/). */
export const LAB_EXPERIMENTS = [
  'history-kill',
  'postgres-restart',
  'dockerd-kill',
  'network-cut',
  'worker-kill-fleet',
  'dark-edge',
  'forged-starts',
] as const;
export type LabExperimentName = (typeof LAB_EXPERIMENTS)[number];
/**
 * What CI runs after the tests (`--lab --quick`): the two that strike Temporal's own parts, and the forged
 * starts a plain client of the real server can send.
 */
export const LAB_QUICK: LabExperimentName[] = ['history-kill', 'postgres-restart', 'forged-starts'];

export interface ChaosOptions {
  quick: boolean;
  /** The production-shaped lab's experiments (scripts/chaos/lab/), instead of the dev server's. */
  lab: boolean;
  json: boolean;
  only: ExperimentName[];
  /** With `--lab`: the lab experiments to run. */
  labOnly: LabExperimentName[];
  /** worker-kill only at the positions whose name holds this, e.g. `copyTree#1` (a failed run found again). */
  killAt?: string;
}

export class ChaosUsageError extends Error {
  override readonly name = 'ChaosUsageError';
}

/**
 * `--quick` (the CI subset), `--json` (the results as JSON on stdout), `--only a,b` (those experiments),
 * `--kill-at <position>` (worker-kill at those positions only, e.g. `copyTree#1` or `waiting at gate-apply`).
 */
export function parseChaosOptions(argv: string[]): ChaosOptions {
  const options: ChaosOptions = {
    quick: false,
    lab: false,
    json: false,
    only: [...EXPERIMENTS],
    labOnly: [...LAB_EXPERIMENTS],
  };
  let named: string[] | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--quick') options.quick = true;
    else if (arg === '--lab') options.lab = true;
    else if (arg === '--json') options.json = true;
    else if (arg === '--only' || arg?.startsWith('--only=')) {
      const value = arg === '--only' ? argv[++i] : arg.slice('--only='.length);
      if (!value)
        throw new ChaosUsageError('--only needs experiment names, e.g. --only worker-kill,late-decisions.');
      named = value.split(',').map((name) => name.trim());
    } else if (arg === '--kill-at') {
      const position = argv[++i];
      if (!position) throw new ChaosUsageError('--kill-at needs a kill position, e.g. --kill-at copyTree#1.');
      options.killAt = position;
    } else
      throw new ChaosUsageError(
        `Unknown option ${arg}: use --quick, --lab, --json, --only <experiments> or --kill-at <position>.`,
      );
  }
  const known: readonly string[] = options.lab ? LAB_EXPERIMENTS : EXPERIMENTS;
  const unknown = (named ?? []).filter((name) => !known.includes(name));
  if (unknown.length > 0)
    throw new ChaosUsageError(`No experiment ${unknown.join(', ')}: choose from ${known.join(', ')}.`);
  if (options.lab)
    options.labOnly =
      (named as LabExperimentName[] | undefined) ?? (options.quick ? LAB_QUICK : options.labOnly);
  else if (named) options.only = named as ExperimentName[];
  return options;
}
