/**
 * What the controller inherits from the worker: the variables a program needs to run as this user in this
 * locale, never the worker's own settings and secrets (TEMPORAL_API_KEY, MESH_CONFIG, cloud credentials).
 * `MESH_*` is not passed by prefix: this project's own settings use it. Anything else the controller reads
 * is named in the adapter config: `passEnv` (taken from the worker's environment) or `env` (the value).
 */
export const INHERITED_NAMES = [
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'LANG',
  'LANGUAGE',
  'TZ',
  'TMPDIR',
  'SSH_AUTH_SOCK',
  'XDG_CONFIG_HOME',
  'XDG_RUNTIME_DIR',
] as const;

const INHERITED_PREFIXES = ['LC_'] as const;

/** Names `passEnv` may not hand over: the worker's Temporal credentials are never the controller's business. */
export const NEVER_PASSED = /^TEMPORAL_/;

export interface ControllerEnvSettings {
  /** Names taken from the worker's environment as they are. */
  passEnv: readonly string[];
  /** Values set for the controller, over anything inherited. */
  env: Readonly<Record<string, string>>;
}

/** The whole environment of one controller call. */
export function controllerEnvironment(
  worker: NodeJS.ProcessEnv,
  { passEnv, env }: ControllerEnvSettings,
): Record<string, string> {
  const passed: Record<string, string> = {};
  for (const [name, value] of Object.entries(worker)) {
    if (value === undefined) continue;
    const inherited =
      (INHERITED_NAMES as readonly string[]).includes(name) ||
      INHERITED_PREFIXES.some((prefix) => name.startsWith(prefix)) ||
      passEnv.includes(name);
    if (inherited) passed[name] = value;
  }
  return { ...passed, ...env };
}
