/** The config (its file or an environment variable) is wrong: one sentence naming where, and what to do. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(
    message: string,
    readonly suggestion: string,
  ) {
    super(message);
  }
}
