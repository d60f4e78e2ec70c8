import { MeshRefusedError } from '../errors';
import { NAME_PATTERN, type ModuleSpec } from '../schemas';
import { readJsonIfExists, writeJsonAtomic } from './json-files';
import type { StateLayout } from './layout';
import { withLock } from './lock';
import { ControllerState, type ControllerNode } from './state-schemas';

const LOCK_TIMEOUT_MS = 10_000;

/** The controller's file, read whole and written whole under the controller lock. */
export class ControllerStore {
  constructor(private readonly layout: StateLayout) {}

  /** A state dir without a controller file is a mesh with no nodes and no modules yet. */
  async read(): Promise<ControllerState> {
    const state = await readJsonIfExists(ControllerState, this.layout.controllerFile);
    return state ?? { version: 1, nodes: {}, modules: {} };
  }

  /**
   * Read, change (in place), write, all under the lock; `afterSave` still runs under the lock, so work
   * that must follow the saved state in order (e.g. a push's inbox file) cannot be overtaken.
   */
  async update<T>(
    change: (state: ControllerState) => T | Promise<T>,
    afterSave?: (result: T) => Promise<void>,
  ): Promise<T> {
    return withLock(this.layout.controllerLock, { timeoutMs: LOCK_TIMEOUT_MS }, async () => {
      const state = await this.read();
      const result = await change(state);
      await writeJsonAtomic(this.layout.controllerFile, state);
      await afterSave?.(result);
      return result;
    });
  }
}

export function checkName(kind: 'node' | 'module', name: string): void {
  if (!NAME_PATTERN.test(name)) {
    throw new MeshRefusedError(
      `"${name}" is not a valid ${kind} name: use lower-case letters, digits and dashes, not starting with a dash.`,
    );
  }
}

export function requireNode(state: ControllerState, node: string): ControllerNode {
  checkName('node', node);
  const entry = state.nodes[node];
  if (!entry) throw new MeshRefusedError(`There is no node "${node}" in this mesh; create it first.`);
  return entry;
}

export function requireModule(state: ControllerState, module: string): ModuleSpec {
  checkName('module', module);
  const spec = state.modules[module];
  if (!spec) throw new MeshRefusedError(`There is no module "${module}" in this mesh; define it first.`);
  return spec;
}
