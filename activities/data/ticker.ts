/**
 * Calls `report` now, then every `everyMs` until the returned stop function is called, which reports
 * once more: progress is heartbeated during long scans and copies, and the last details an attempt
 * leaves (also when it fails) are where a retry resumes.
 */
export function startTicker(report: () => void, everyMs = 1000): () => void {
  report();
  const timer = setInterval(report, everyMs);
  return () => {
    clearInterval(timer);
    report();
  };
}
