import { connectionOptionsOf, loadConfig, type MeshConfig, type TemporalConnectionOptions } from '../config';
import { diagnose, unreachableDiagnosis, type Diagnosis } from './connection-diagnosis';

/** Where the Temporal frontend is: the config's temporal section (TEMPORAL_* env over the file). */
export interface TemporalTarget {
  address: string;
  namespace: string;
}

/** The target and the full options (TLS, API key, metadata) the CLI's client and the worker both connect with. */
export interface TemporalConnection extends TemporalTarget {
  options: TemporalConnectionOptions;
}

export function temporalTarget(env: NodeJS.ProcessEnv = process.env): TemporalTarget {
  const { address, namespace } = loadConfig({ env }).temporal;
  return { address, namespace };
}

export function temporalConnection(config: MeshConfig = loadConfig()): TemporalConnection {
  const { address, namespace } = config.temporal;
  return { address, namespace, options: connectionOptionsOf(config.temporal) };
}

/**
 * The options to connect to `address`: the configured connection when it is the configured address, else a
 * plain one (the dev server `mesh runbook dev` started itself on an address of its own).
 */
export function connectionOptionsFor(
  address: string,
  env: NodeJS.ProcessEnv = process.env,
): TemporalConnectionOptions {
  const configured = temporalConnection(loadConfig({ env }));
  return configured.address === address ? configured.options : { address };
}

/** A connection to Temporal failed; the message is the diagnosis's sentence and its suggestion. */
export class TemporalConnectionError extends Error implements Diagnosis {
  override readonly name = 'TemporalConnectionError';
  readonly sentence: string;
  readonly suggestion: string;
  readonly misconfigured: boolean;
  constructor(diagnosis: Diagnosis) {
    super(`${diagnosis.sentence} ${diagnosis.suggestion}`);
    this.sentence = diagnosis.sentence;
    this.suggestion = diagnosis.suggestion;
    this.misconfigured = diagnosis.misconfigured;
  }
}

/** The failure to throw before even trying to connect, when nothing answers at the address. */
export async function unreachable(
  options: TemporalConnectionOptions,
): Promise<TemporalConnectionError | undefined> {
  const diagnosis = await unreachableDiagnosis(options);
  return diagnosis ? new TemporalConnectionError(diagnosis) : undefined;
}

/** Turns the SDK's connect error (client or worker alike) into one sentence with a suggestion. */
export async function connectionFailure(
  options: TemporalConnectionOptions,
  error: unknown,
): Promise<TemporalConnectionError> {
  return new TemporalConnectionError(
    await diagnose(options, error instanceof Error ? error.message : String(error)),
  );
}
