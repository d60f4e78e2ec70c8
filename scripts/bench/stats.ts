/** Order statistics of a sample: what the bench reports for every figure. */
export interface Summary {
  n: number;
  median: number;
  p95: number;
  min: number;
  max: number;
}

/** Nearest-rank percentile (p in 0..100) of a non-empty sample. */
export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1] ?? Number.NaN;
}

/** The median as the middle value (the mean of the two middle ones for an even count). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  if (sorted.length === 0) return Number.NaN;
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** n, median, p95, min and max; undefined for an empty sample, so a missing figure is never a zero. */
export function summarize(values: readonly number[]): Summary | undefined {
  if (values.length === 0) return undefined;
  return {
    n: values.length,
    median: median(values),
    p95: percentile(values, 95),
    min: Math.min(...values),
    max: Math.max(...values),
  };
}

/** a / b of two medians, undefined when either is missing. */
export function ratio(a: Summary | undefined, b: Summary | undefined): number | undefined {
  return a && b && b.median > 0 ? a.median / b.median : undefined;
}
