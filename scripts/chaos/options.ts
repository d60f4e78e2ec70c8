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
  'crossed-probes',
] as const;
export type ExperimentName = (typeof EXPERIMENTS)[number];

export interface ChaosOptions {
  quick: boolean;
  json: boolean;
  only: ExperimentName[];
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
  const options: ChaosOptions = { quick: false, json: false, only: [...EXPERIMENTS] };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--quick') options.quick = true;
    else if (arg === '--json') options.json = true;
    else if (arg === '--only' || arg?.startsWith('--only=')) {
      const value = arg === '--only' ? argv[++i] : arg.slice('--only='.length);
      if (!value)
        throw new ChaosUsageError('--only needs experiment names, e.g. --only worker-kill,late-decisions.');
      const names = value.split(',').map((name) => name.trim());
      const unknown = names.filter((name) => !(EXPERIMENTS as readonly string[]).includes(name));
      if (unknown.length > 0)
        throw new ChaosUsageError(
          `No experiment ${unknown.join(', ')}: choose from ${EXPERIMENTS.join(', ')}.`,
        );
      options.only = names as ExperimentName[];
    } else if (arg === '--kill-at') {
      const position = argv[++i];
      if (!position) throw new ChaosUsageError('--kill-at needs a kill position, e.g. --kill-at copyTree#1.');
      options.killAt = position;
    } else
      throw new ChaosUsageError(
        `Unknown option ${arg}: use --quick, --json, --only <experiments> or --kill-at <position>.`,
      );
  }
  return options;
}
