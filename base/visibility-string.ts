/** A string as a visibility query takes it: single-quoted, its backslashes and quotes escaped. */
export function visibilityString(value: string): string {
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}
