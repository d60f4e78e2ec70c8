import { z } from 'zod';
import { ConfigError } from '../../base/config-error';
import { ContainerLabels, LOCAL_MESH_LABELS } from '../../docker/container-labels';
import { firstIssue } from '../../base/zod-issue';
import { MESH_VERBS, VERB_PLACEHOLDERS, placeholdersIn, type CommandTemplate, type MeshVerb } from './argv';
import { commandCallingItself } from './controller-program';
import { NEVER_PASSED } from './environment';

/**
 * How the command adapter drives the operator's `mesh` controller CLI. Each verb is one program and an
 * argument array; `{placeholder}`s are substituted inside single arguments, never through a shell.
 *
 * Output contract (stdout, exit code 0):
 * - push: a PushReceipt; nodeState: a NodeState; moduleSpec: a ModuleSpec (JSON).
 * - moduleNodes: `{"module": M, "nodes": [...]}`, the nodes M is assigned to (JSON).
 * - applyReport: the node's ApplyReport as JSON, or the JSON literal `null` while the node has not
 *   applied any push yet. A report for another pushId is an older (or superseding) push's report and is
 *   read as "not yet applied this push". A non-zero exit is always a failure, never "not yet".
 * - assign, unassign, take, setModuleSpec, setUpgradePolicy: stdout is ignored; exit code 0 is success.
 * - setModuleSpec: the spec is written as JSON to a private temporary file passed as `{specFile}`.
 */
export const DEFAULT_VERB_ARGS: Record<MeshVerb, string[]> = {
  assign: ['assign', '{module}', '{node}', '--json'],
  unassign: ['unassign', '{module}', '{node}', '--json'],
  push: ['push', '{node}', '--json'],
  take: ['take', '{module}', '{node}', '--json'],
  applyReport: ['node', 'apply-report', '{node}', '--push', '{pushId}', '--json'],
  nodeState: ['node', 'show', '{node}', '--json'],
  moduleSpec: ['module', 'show', '{module}', '--json'],
  moduleNodes: ['module', 'nodes', '{module}', '--json'],
  setModuleSpec: ['module', 'define', '{specFile}'],
  setUpgradePolicy: ['module', 'set-policy', '{module}', '{policy}'],
};

const TimeoutMs = z.number().int().positive();

const VerbConfig = z.object({
  /** The program for this verb; defaults to the config's `command`. */
  command: z.string().min(1).optional(),
  args: z.array(z.string()),
  timeoutMs: TimeoutMs.optional(),
});

const verbShape = Object.fromEntries(MESH_VERBS.map((verb) => [verb, VerbConfig.optional()])) as Record<
  MeshVerb,
  z.ZodOptional<typeof VerbConfig>
>;

export const CommandMeshConfigSchema = z
  .object({
    /** The controller CLI: a name on PATH or an absolute path. */
    command: z.string().min(1).default('mesh'),
    timeoutMs: TimeoutMs.default(30_000),
    /**
     * Set for every call (e.g. the controller's address). The controller inherits only PATH, HOME, the
     * locale and a few more from the worker (./environment.ts), plus what `passEnv` names.
     */
    env: z.record(z.string(), z.string()).default({}),
    /** Names of the worker's environment variables the controller also gets (a token from a secret store). */
    passEnv: z
      .array(
        z
          .string()
          .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment variable name')
          .refine(
            (name) => !NEVER_PASSED.test(name),
            'the controller never gets the worker’s TEMPORAL_* settings',
          ),
      )
      .default([]),
    verbs: z.object(verbShape).strict().default({}),
    /**
     * The Docker labels the controller puts on its containers (module, container spec name, and the node
     * where one engine serves several); the node workers find a module's containers by them.
     */
    containerLabels: ContainerLabels.default(LOCAL_MESH_LABELS),
    /**
     * Exit codes by which the controller refuses (an unknown node or module, a verb out of place): the
     * first line of its stderr is then the refusal's sentence, final rather than retried.
     */
    refusedExitCodes: z.array(z.number().int().min(1).max(255)).default([]),
  })
  .strict()
  .superRefine((config, ctx) => {
    for (const verb of MESH_VERBS) {
      const allowed: readonly string[] = VERB_PLACEHOLDERS[verb];
      for (const [index, arg] of (config.verbs[verb]?.args ?? []).entries()) {
        for (const name of placeholdersIn(arg).filter((used) => !allowed.includes(used))) {
          const knows = allowed.map((known) => `{${known}}`).join(', ');
          ctx.addIssue({
            code: 'custom',
            path: ['verbs', verb, 'args', index],
            message: `the ${verb} command uses the unknown placeholder {${name}}; ${verb} only knows ${knows}`,
          });
        }
      }
    }
  })
  .transform((config) => ({
    containerLabels: config.containerLabels,
    refusedExitCodes: config.refusedExitCodes,
    env: config.env,
    passEnv: config.passEnv,
    verbs: Object.fromEntries(
      MESH_VERBS.map((verb) => {
        const own = config.verbs[verb];
        const template = {
          command: own?.command ?? config.command,
          args: own?.args ?? DEFAULT_VERB_ARGS[verb],
          timeoutMs: own?.timeoutMs ?? config.timeoutMs,
        };
        return [verb, template];
      }),
    ) as Record<MeshVerb, CommandTemplate & { timeoutMs: number }>,
  }));

export type CommandMeshConfigInput = z.input<typeof CommandMeshConfigSchema>;
export type CommandMeshConfig = z.output<typeof CommandMeshConfigSchema>;

/** The command adapter's config does not load; the message is one sentence naming what to fix. */
export class CommandMeshConfigError extends ConfigError {
  constructor(
    message: string,
    suggestion = 'Fix that field; docs/production.md ("The command adapter") describes its config.',
  ) {
    super(message, suggestion);
  }
}

/**
 * This project's CLI is also called `mesh`, as is the controller the adapter drives by default: on a host
 * with both on PATH (or one linked to the other) the adapter would run `mesh assign ...` against this CLI.
 * `path` is the PATH the controller is looked up on (the config's own env.PATH, else the worker's).
 */
export function selfCallRefusal(
  config: CommandMeshConfig,
  path: string | undefined,
): CommandMeshConfigError | undefined {
  const commands = Object.values(config.verbs).map((verb) => verb.command);
  const self = commandCallingItself(commands, config.env.PATH ?? path);
  if (!self) return undefined;
  return new CommandMeshConfigError(
    `The command adapter's controller "${self.command}" is this mesh-runbook CLI (${self.resolved}), so the adapter would call itself instead of your mesh controller.`,
    'Set the adapter\'s command to your controller\'s absolute path, and put this CLI on PATH as mesh-runbook only (docs/production.md: "The command adapter").',
  );
}

/** The adapter's config from its JSON; refused when it does not parse or its controller is this CLI. */
export function loadCommandMeshConfig(
  input: unknown,
  env: NodeJS.ProcessEnv = process.env,
): CommandMeshConfig {
  const result = CommandMeshConfigSchema.safeParse(input ?? {});
  if (!result.success) {
    const { field, problem } = firstIssue(result.error);
    throw new CommandMeshConfigError(`Invalid mesh command config: ${field ? `${field}: ` : ''}${problem}.`);
  }
  const refusal = selfCallRefusal(result.data, env.PATH);
  if (refusal) throw refusal;
  return result.data;
}
