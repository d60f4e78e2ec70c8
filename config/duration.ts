import { msToNumber } from '@temporalio/common/lib/time';
import { z } from 'zod';

type DurationString = Parameters<typeof msToNumber>[0];

/** A duration written by a person ("15m", "1h", "90s", "2 days") or a number of milliseconds. */
export const Duration = z.union([z.number().int().positive(), z.string()]).transform((value, ctx) => {
  if (typeof value === 'number') return value;
  let ms = Number.NaN;
  try {
    ms = msToNumber(value as DurationString);
  } catch {
    // reported below
  }
  if (Number.isInteger(ms) && ms > 0) return ms;
  ctx.addIssue({ code: 'custom', message: `"${value}" is not a duration like 15m, 1h or 90s` });
  return z.NEVER;
});
