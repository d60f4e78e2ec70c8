import type { MeshPort } from '../port';

/** What each verb of the port may substitute into its argument templates. */
export const VERB_PLACEHOLDERS = {
  assign: ['module', 'node'],
  unassign: ['module', 'node'],
  push: ['node'],
  take: ['module', 'node'],
  applyReport: ['node', 'pushId'],
  nodeState: ['node'],
  moduleSpec: ['module'],
  moduleNodes: ['module'],
  setModuleSpec: ['module', 'specFile'],
  setUpgradePolicy: ['module', 'policy'],
} as const satisfies Record<Exclude<keyof MeshPort, 'watchReports' | 'containerLabels'>, readonly string[]>;

export type MeshVerb = keyof typeof VERB_PLACEHOLDERS;
export const MESH_VERBS = Object.keys(VERB_PLACEHOLDERS) as MeshVerb[];
export type PlaceholderValues<V extends MeshVerb> = Record<(typeof VERB_PLACEHOLDERS)[V][number], string>;

export interface CommandTemplate {
  command: string;
  args: string[];
}

export interface Argv {
  command: string;
  args: string[];
}

const PLACEHOLDER = /\{([A-Za-z][A-Za-z0-9]*)\}/g;

/** The placeholder names an argument template uses, e.g. `--push={pushId}` → `['pushId']`. */
export function placeholdersIn(template: string): string[] {
  return [...template.matchAll(PLACEHOLDER)].map((match) => match[1] ?? '');
}

/** A value that would change what the command means, refused before anything runs. */
export class UnsafeMeshArgumentError extends Error {
  override readonly name = 'UnsafeMeshArgumentError';
}

/**
 * Substitutes placeholders inside each argument separately: one template element is one argument,
 * whatever the values contain, and substituted text is never scanned for placeholders again.
 */
export function buildArgv<V extends MeshVerb>(
  verb: V,
  template: CommandTemplate,
  values: PlaceholderValues<V>,
): Argv {
  const known: Record<string, string> = values;
  const args = template.args.map((element) => {
    const substituted = element.replace(PLACEHOLDER, (whole, name: string) => {
      const value = known[name];
      if (value === undefined)
        throw new UnsafeMeshArgumentError(`${verb} has no value for placeholder ${whole}`);
      if (value === '' || value.includes('\0')) {
        throw new UnsafeMeshArgumentError(`${verb}: the value for ${whole} is empty or contains a NUL byte`);
      }
      return value;
    });
    // A value may not turn a positional argument into an option (`--force`); only the template decides that.
    if (substituted.startsWith('-') && !element.startsWith('-')) {
      throw new UnsafeMeshArgumentError(
        `${verb}: argument ${JSON.stringify(substituted)} would read as an option`,
      );
    }
    return substituted;
  });
  return { command: template.command, args };
}

/** A readable rendering of a command line for messages; never executed. */
export function describeArgv({ command, args }: Argv): string {
  return [command, ...args]
    .map((part) => (/^[\w./:=@+-]+$/.test(part) ? part : JSON.stringify(part)))
    .join(' ');
}
