import { join } from 'node:path';
import { RunbookPolicy } from '../../workflows/policy';
import type { TimingLimits } from '../../workflows/timing-limits';

/** The config file worker processes of tests, chaos and the bench read (MESH_CONFIG): short timings allowed. */
export const TEST_WORKER_CONFIG = join(__dirname, 'test-worker.yaml');

/** A test worker's limits: tests shorten the windows they do not measure; the product's limits stay its own. */
const TEST_TIMING_LIMITS: TimingLimits = { least: {}, most: {} };

/**
 * The policy a test worker runs under: `policy` (default: the product's), with short timings allowed; one
 * that names its own limits is that very object, so a test that changes it later changes the worker's.
 */
export function testPolicy(policy: RunbookPolicy = RunbookPolicy.parse({})): RunbookPolicy {
  return policy.timingLimits ? policy : { ...policy, timingLimits: TEST_TIMING_LIMITS };
}
