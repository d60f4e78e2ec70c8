export { ConfigError } from '../base/config-error';
export { CONFIG_ENV, loadConfig, type MeshConfig } from './load';
export { redactConfig, redactUrl, REDACTED } from './redact';
export { ANY_NODE } from './schema';
export { connectionOptionsOf, type TemporalConnectionOptions, type TemporalSettings } from './temporal';
