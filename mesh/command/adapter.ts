import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { z } from 'zod';
import { activitySignal, heartbeat } from '../../base/activity-heartbeat';
import type { ContainerLabels } from '../../docker/container-labels';
import { MeshCommandError, MeshRefusedError, MeshUnreadableError } from '../errors';
import { printable } from '../../base/printable';
import { parseMeshJson } from '../parse';
import type { MeshPort } from '../port';
import { ApplyReport, ModuleNodes, ModuleSpec, NodeState, PushReceipt, type UpgradePolicy } from '../schemas';
import { buildArgv, describeArgv, type MeshVerb, type PlaceholderValues } from './argv';
import type { CommandMeshConfig } from './config';
import { controllerEnvironment } from './environment';
import { runMeshCommand } from './run';

/**
 * The operator's real mesh controller, driven through its CLI (docs/design.md §6). Output contract:
 * ./config.ts.
 */
export class CommandMesh implements MeshPort {
  readonly containerLabels: ContainerLabels;

  constructor(private readonly config: CommandMeshConfig) {
    this.containerLabels = config.containerLabels;
  }

  async assign(module: string, node: string): Promise<void> {
    await this.run('assign', { module, node });
  }

  async unassign(module: string, node: string): Promise<void> {
    await this.run('unassign', { module, node });
  }

  async push(node: string): Promise<PushReceipt> {
    const receipt = await this.read('push', { node }, PushReceipt);
    return expectSame(receipt.value, 'node', node, receipt.source);
  }

  async take(module: string, node: string): Promise<void> {
    await this.run('take', { module, node });
  }

  async applyReport(node: string, pushId: string): Promise<ApplyReport | undefined> {
    const { value: report, source } = await this.read(
      'applyReport',
      { node, pushId },
      ApplyReport.nullable(),
    );
    if (report === null || report.pushId !== pushId) return undefined;
    return expectSame(report, 'node', node, source);
  }

  async nodeState(node: string): Promise<NodeState> {
    const state = await this.read('nodeState', { node }, NodeState);
    return expectSame(state.value, 'node', node, state.source);
  }

  async moduleSpec(module: string): Promise<ModuleSpec> {
    const spec = await this.read('moduleSpec', { module }, ModuleSpec);
    return expectSame(spec.value, 'module', module, spec.source);
  }

  async moduleNodes(module: string): Promise<string[]> {
    const listed = await this.read('moduleNodes', { module }, ModuleNodes);
    return [...new Set(expectSame(listed.value, 'module', module, listed.source).nodes)].sort();
  }

  async setModuleSpec(spec: ModuleSpec): Promise<void> {
    const dir = await mkdtemp(join(tmpdir(), 'mesh-spec-'));
    try {
      const specFile = join(dir, `${spec.module}.json`);
      await writeFile(specFile, `${JSON.stringify(spec, null, 2)}\n`, { mode: 0o600 });
      await this.run('setModuleSpec', { module: spec.module, specFile });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  async setUpgradePolicy(module: string, policy: UpgradePolicy): Promise<void> {
    await this.run('setUpgradePolicy', { module, policy });
  }

  private async run<V extends MeshVerb>(verb: V, values: PlaceholderValues<V>) {
    const { timeoutMs, ...template } = this.config.verbs[verb];
    const argv = buildArgv(verb, template, values);
    const env = controllerEnvironment(process.env, this.config);
    // Inside an activity: a slow controller keeps it alive, and an abort kills the controller at once.
    const output = await runMeshCommand({
      ...argv,
      timeoutMs,
      env,
      signal: activitySignal(),
      onStillRunning: () => heartbeat({ mesh: verb }),
    }).catch((error: unknown) => {
      throw this.refusalOf(error) ?? error;
    });
    return { stdout: output.stdout, source: `\`${describeArgv(argv)}\`` };
  }

  /** A controller's refusal, by its exit code: its first stderr line, as mesh's own sentence. */
  private refusalOf(error: unknown): MeshRefusedError | undefined {
    if (!(error instanceof MeshCommandError) || error.exitCode === null) return undefined;
    if (!this.config.refusedExitCodes.includes(error.exitCode)) return undefined;
    const sentence = error.stderr.split('\n').find((line) => line.trim() !== '') ?? error.message;
    return new MeshRefusedError(printable(sentence.trim()));
  }

  private async read<V extends MeshVerb, S extends z.ZodType>(
    verb: V,
    values: PlaceholderValues<V>,
    schema: S,
  ) {
    const { stdout, source } = await this.run(verb, values);
    return { value: parseMeshJson(schema, stdout, source), source };
  }
}

/** Output about another node or module than the one asked for is not evidence about this one. */
function expectSame<T extends object, K extends keyof T & string>(
  value: T,
  key: K,
  expected: string,
  source: string,
): T {
  if (value[key] !== expected) {
    throw new MeshUnreadableError(
      source,
      key,
      `is ${JSON.stringify(value[key])}, expected ${JSON.stringify(expected)}`,
    );
  }
  return value;
}
