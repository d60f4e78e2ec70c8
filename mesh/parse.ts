import type { z } from 'zod';
import { MeshUnreadableError } from './errors';
import { firstIssue } from '../base/zod-issue';

/** Parses mesh output or state, naming the source and the first offending field when it does not fit. */
export function parseMesh<S extends z.ZodType>(schema: S, value: unknown, source: string): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const { field, problem } = firstIssue(result.error);
  throw new MeshUnreadableError(source, field, problem.toLowerCase());
}

/** Parses JSON text from mesh (a file, a command's stdout) then validates it. */
export function parseMeshJson<S extends z.ZodType>(schema: S, text: string, source: string): z.output<S> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const why =
      text.trim() === '' ? 'is empty' : `is not valid JSON (truncated?): ${(error as Error).message}`;
    throw new MeshUnreadableError(source, '', why);
  }
  return parseMesh(schema, value, source);
}
