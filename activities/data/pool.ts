/**
 * Runs `fn` over `items` with at most `limit` calls in flight. The first failure stops the lanes from
 * taking more items and rejects the whole run, but only once every call in flight has settled: a copy
 * that is cancelled has stopped writing when this rejects (an undo may remove its target next).
 */
export async function forEachLimit<T>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  let failed = false;
  const lane = async (): Promise<void> => {
    while (!failed && next < items.length) {
      const index = next++;
      try {
        await fn(items[index] as T, index);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  const lanes = await Promise.allSettled(Array.from({ length: Math.min(limit, items.length) }, lane));
  const rejected = lanes.find((settled) => settled.status === 'rejected');
  if (rejected) throw rejected.reason;
}
