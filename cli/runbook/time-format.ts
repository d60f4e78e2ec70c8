/** How long something took, for a terminal: tenths under 10 s, then seconds, minutes, hours. */
export function formatDuration(ms: number): string {
  const safe = Math.max(0, ms);
  if (safe < 10_000) return `${(safe / 1000).toFixed(1)}s`;
  const seconds = Math.floor(safe / 1000);
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m${String(seconds % 60).padStart(2, '0')}s`;
  return `${Math.floor(minutes / 60)}h${String(minutes % 60).padStart(2, '0')}m`;
}

/** An ISO time without its milliseconds: `2026-09-26T12:08:00Z`. */
export function isoSeconds(iso: string): string {
  return iso.replace(/\.\d+Z$/, 'Z');
}

/** The time of day of an ISO time, UTC: `12:08:00`. */
export function clockTime(iso: string): string {
  return iso.slice(11, 19);
}
