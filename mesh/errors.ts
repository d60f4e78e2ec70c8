/** Errors thrown by mesh adapters. They stay local; activities turn them into failures. */
import { printable } from '../base/printable';

/** A state file, report or command output from mesh that does not parse. Never to be read as success. */
export class MeshUnreadableError extends Error {
  override readonly name = 'MeshUnreadableError';
  constructor(
    readonly source: string,
    readonly field: string,
    readonly detail: string,
  ) {
    // The detail may quote what it could not parse: never a node's control characters, never 10 MB of it.
    super(printable(`${source}: ${field === '' ? 'the document' : `field "${field}"`} ${detail}`));
  }
}

/** An unknown node or module, or a verb that does not fit the current state (e.g. take before assign). */
export class MeshRefusedError extends Error {
  override readonly name = 'MeshRefusedError';
}

/** The operator's mesh command could not run or exited non-zero. */
export class MeshCommandError extends Error {
  override readonly name = 'MeshCommandError';
  constructor(
    message: string,
    readonly exitCode: number | null,
    readonly stderr: string,
  ) {
    super(message);
  }
}
