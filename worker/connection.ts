/** Where the Temporal frontend is: the standard TEMPORAL_* environment, else a local dev server. */
export interface TemporalTarget {
  address: string;
  namespace: string;
}

export function temporalTarget(env: NodeJS.ProcessEnv = process.env): TemporalTarget {
  return {
    address: env.TEMPORAL_ADDRESS || 'localhost:7233',
    namespace: env.TEMPORAL_NAMESPACE || 'default',
  };
}
