/** An ISO time without its milliseconds: `2026-09-26T12:08:00Z`. */
export function isoSeconds(iso: string): string {
  return iso.replace(/\.\d+Z$/, 'Z');
}

/** The time of day of an ISO time, UTC: `12:08:00`. */
export function clockTime(iso: string): string {
  return iso.slice(11, 19);
}
