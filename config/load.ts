import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type * as Yaml from 'yaml';
import type { z } from 'zod';
import { DEFAULT_SOCKET, DockerEndpointsConfig } from '../docker/endpoint-config';
import { CommandMeshConfigSchema, selfCallRefusal } from '../mesh/command/config';
import { resolveLocalStateDir } from '../mesh/local/state-dir';
import { firstIssueText } from '../base/zod-issue';
import type { RunbookPolicy } from '../workflows/policy';
import { ConfigError } from '../base/config-error';
import { readProblem } from './read-problem';
import { ANY_NODE, LOG_LEVELS, MeshConfigFile, type NodesFile } from './schema';
import { definedEnv, resolveTemporal, type TemporalSettings } from './temporal';
import type { WebhookConfig } from './webhook';

/** The effective config: the file (if any) with the environment's overrides; what `mesh config` prints. */
export interface MeshConfig {
  /** The config file read, if any (MESH_CONFIG or --config). */
  file?: string;
  temporal: TemporalSettings;
  mesh:
    | { adapter: 'local'; localState: string }
    | { adapter: 'command'; command: string | Record<string, unknown> };
  /** Node name → Docker endpoint; `*` is every other node. */
  nodes: z.output<typeof NodesFile>;
  policy: RunbookPolicy;
  notifier?: { webhook: WebhookConfig };
  log: { level: (typeof LOG_LEVELS)[number] };
}

export const CONFIG_ENV = 'MESH_CONFIG';

const SEE_EXAMPLE = 'see config/mesh.example.yaml';

/** Reads the config file `file` (default: $MESH_CONFIG; none: the environment alone) and applies the env. */
export function loadConfig(options: { env?: NodeJS.ProcessEnv; file?: string } = {}): MeshConfig {
  const env = options.env ?? process.env;
  const file = options.file ?? (env[CONFIG_ENV] || undefined);
  const path = file !== undefined ? resolve(file) : undefined;
  const parsed = path !== undefined ? parseFile(path) : MeshConfigFile.parse({});
  return {
    ...(path !== undefined ? { file: path } : {}),
    temporal: resolveTemporal(parsed.temporal, definedEnv(env), path),
    mesh: meshOf(parsed.mesh, env, path),
    nodes: nodesOf(parsed.nodes, env),
    policy: parsed.policy,
    ...(parsed.notifier ? { notifier: parsed.notifier } : {}),
    log: { level: logLevelOf(parsed.log.level, env) },
  };
}

function parseFile(path: string): MeshConfigFile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError(
      `Cannot read the config file ${path}: ${readProblem(error)}.`,
      `Check the path given by --config or ${CONFIG_ENV}, or leave both unset to configure by environment alone.`,
    );
  }
  let raw: unknown;
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only when there is a file to read
    raw = (require('yaml') as typeof Yaml).parse(text, { prettyErrors: true }) ?? {};
  } catch (error) {
    const first = String((error as Error).message)
      .split('\n')[0]
      ?.replace(/[:.]$/, '');
    throw new ConfigError(
      `The config file ${path} is not valid YAML or JSON: ${first}.`,
      `Fix its syntax (${SEE_EXAMPLE}).`,
    );
  }
  const result = MeshConfigFile.safeParse(raw);
  if (result.success) return result.data;
  throw new ConfigError(
    `The config file ${path} is invalid at ${invalidAt(result.error)}.`,
    `Fix that field (${SEE_EXAMPLE}); \`mesh config\` prints what is in effect.`,
  );
}

/** `field: problem` for "is invalid at ...". */
function invalidAt(error: z.ZodError): string {
  return firstIssueText(error, 'the top level');
}

function meshOf(
  section: MeshConfigFile['mesh'],
  env: NodeJS.ProcessEnv,
  file: string | undefined,
): MeshConfig['mesh'] {
  const adapter = env.MESH_ADAPTER || section.adapter || 'local';
  if (adapter === 'local') {
    const fromFile = env.MESH_LOCAL_STATE ? undefined : section.localState;
    return { adapter, localState: resolveLocalStateDir(fromFile, env) };
  }
  if (adapter !== 'command') {
    throw new ConfigError(
      `MESH_ADAPTER must be local or command, not "${adapter}".`,
      'Set it to local or command, or unset it.',
    );
  }
  const command = env.MESH_COMMAND_CONFIG || section.command;
  if (command === undefined) {
    throw new ConfigError(
      `The command adapter needs its config, but neither ${file ?? 'a config file'} (mesh.command) nor MESH_COMMAND_CONFIG gives one.`,
      'Set mesh.command to the adapter config file (or the config inline), or MESH_COMMAND_CONFIG to its path.',
    );
  }
  checkCommandConfig(command, env.MESH_COMMAND_CONFIG ? 'MESH_COMMAND_CONFIG' : `${file}: mesh.command`, env);
  return { adapter, command: typeof command === 'string' ? resolve(command) : command };
}

function checkCommandConfig(
  command: string | Record<string, unknown>,
  where: string,
  env: NodeJS.ProcessEnv,
): void {
  const raw = typeof command === 'string' ? readJson(command, where) : command;
  const result = CommandMeshConfigSchema.safeParse(raw ?? {});
  if (result.success) {
    const refusal = selfCallRefusal(result.data, env.PATH);
    if (refusal)
      throw new ConfigError(`${refusal.message.replace(/\.$/, '')} (${where}).`, refusal.suggestion);
    return;
  }
  throw new ConfigError(
    `The command adapter config (${where}) is invalid at ${invalidAt(result.error)}.`,
    'Fix that field; docs/production.md ("The command adapter") describes its config.',
  );
}

function readJson(path: string, where: string): unknown {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new ConfigError(
      `Cannot read ${path} (${where}) as JSON: ${error instanceof SyntaxError ? error.message.replace(/\.$/, '') : readProblem(error)}.`,
      `Point ${where.split(': ').pop()} at a readable JSON file.`,
    );
  }
}

/** The file's nodes, then MESH_DOCKER_ENDPOINTS (`{"default": ..., "nodes": {...}}`) over them node by node. */
function nodesOf(nodes: MeshConfigFile['nodes'], env: NodeJS.ProcessEnv): MeshConfig['nodes'] {
  const merged = { [ANY_NODE]: { socket: DEFAULT_SOCKET }, ...nodes };
  const path = env.MESH_DOCKER_ENDPOINTS;
  if (!path) return merged;
  const raw = readJson(path, 'MESH_DOCKER_ENDPOINTS');
  const result = DockerEndpointsConfig.safeParse(raw);
  if (!result.success) {
    throw new ConfigError(
      `The Docker endpoints file ${path} (MESH_DOCKER_ENDPOINTS) is invalid at ${invalidAt(result.error)}.`,
      'Fix that field, or move the endpoints into the config file under nodes.',
    );
  }
  const hasDefault = (raw as { default?: unknown }).default !== undefined;
  return { ...merged, ...(hasDefault ? { [ANY_NODE]: result.data.default } : {}), ...result.data.nodes };
}

function logLevelOf(level: MeshConfig['log']['level'], env: NodeJS.ProcessEnv): MeshConfig['log']['level'] {
  const wanted = env.MESH_LOG_LEVEL?.toLowerCase();
  if (wanted === undefined || wanted === '') return level;
  if ((LOG_LEVELS as readonly string[]).includes(wanted)) return wanted as MeshConfig['log']['level'];
  throw new ConfigError(
    `MESH_LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, not "${env.MESH_LOG_LEVEL}".`,
    'Set it to one of those, or unset it to use log.level from the config.',
  );
}
