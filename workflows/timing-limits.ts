import { z } from 'zod';
import type { Timings } from './contracts';

export type TimingName = keyof Timings;

const TIMING_NAMES = [
  'applyReportMs',
  'healthDeadlineMs',
  'stabilityWindowMs',
  'recheckEveryMs',
  'probeDeadlineMs',
  'lockAskAgainMs',
] as const satisfies readonly TimingName[];

const Bounds = z.partialRecord(z.enum(TIMING_NAMES), z.number().int().min(0));

/**
 * How far a runbook's input may move its timings, set by the worker's operator (policy `timings`), never by
 * whoever starts the runbook. `least` keeps the windows that make a gate mean something (a shorter stability
 * window lets a crash loop pass) and the pace of its looks; `most` keeps the dark time of a flip and the
 * time before an inconclusive look waits for a person.
 */
export const TimingLimits = z.strictObject({ least: Bounds.default({}), most: Bounds.default({}) });
export type TimingLimits = z.infer<typeof TimingLimits>;

/** The product's limits: the defaults of the windows a gate rests on, and deadlines of minutes, not hours. */
export const PRODUCT_TIMING_LIMITS: TimingLimits = {
  least: { stabilityWindowMs: 3_000, recheckEveryMs: 1_000, lockAskAgainMs: 10_000 },
  most: { probeDeadlineMs: 60_000, healthDeadlineMs: 15 * 60_000, applyReportMs: 15 * 60_000 },
};

/** Why these timings are outside the limits, one sentence, or undefined when they are inside. */
export function timingsRefusal(timings: Timings, limits: TimingLimits): string | undefined {
  const outside: string[] = [];
  for (const name of TIMING_NAMES) {
    const least = limits.least[name];
    const most = limits.most[name];
    const value = timings[name];
    if (least !== undefined && value < least) outside.push(`${name} ${value} is below its least, ${least}`);
    if (most !== undefined && value > most) outside.push(`${name} ${value} is above its most, ${most}`);
  }
  if (outside.length === 0) return undefined;
  return `The runbook's timings are outside what the worker's policy allows (${outside.join('; ')}): start it without them, or ask the worker's operator to change the policy's timings.`;
}
