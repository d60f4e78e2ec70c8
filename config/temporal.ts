import { existsSync } from 'node:fs';
import { decode } from '@temporalio/common/lib/encoding';
import {
  loadClientConfigProfile,
  toClientOptions,
  type ClientConfigProfile,
  type ClientConfigTLS,
  type ConfigDataSource,
} from '@temporalio/envconfig';
import { ConfigError } from '../base/config-error';
import { readProblem } from './read-problem';
import { HostPort, type TemporalFile, type TemporalTlsFile } from './schema';

/** The Temporal connection after every layer: defaults < Temporal profile < mesh config file < TEMPORAL_* env. */
export interface TemporalSettings {
  address: string;
  namespace: string;
  apiKey?: string;
  tls?: TemporalTlsFile;
  grpcMeta?: Record<string, string>;
}

export const DEFAULT_ADDRESS = 'localhost:7233';
export const DEFAULT_NAMESPACE = 'default';

type Env = Record<string, string>;
type Layer = Omit<TemporalFile, 'tls'> & { tls?: TemporalTlsFile };

const PEMS = ['serverCaCert', 'clientCert', 'clientKey'] as const;
const PEM_NAMES = {
  serverCaCert: 'server CA certificate',
  clientCert: 'client certificate',
  clientKey: 'client key',
};
const PEM_ENV = {
  serverCaCert: 'TEMPORAL_TLS_SERVER_CA_CERT_PATH',
  clientCert: 'TEMPORAL_TLS_CLIENT_CERT_PATH',
  clientKey: 'TEMPORAL_TLS_CLIENT_KEY_PATH',
};

export function definedEnv(env: NodeJS.ProcessEnv): Env {
  return Object.fromEntries(
    Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
}

/**
 * The Temporal profile (TEMPORAL_CONFIG_FILE or ~/.config/temporalio/temporal.toml, profile TEMPORAL_PROFILE)
 * and the TEMPORAL_* variables, read by @temporalio/envconfig, layered around the mesh config's section.
 */
export function resolveTemporal(
  section: TemporalFile,
  env: Env,
  configFile: string | undefined,
): TemporalSettings {
  const profile = layerOf(temporalProfile(env));
  const fromEnv = layerOf(loadClientConfigProfile({ disableFile: true, overrideEnvVars: env }));
  const merged = [profile, fileLayer(section), fromEnv].reduce(mergeLayers);
  const address = merged.address ?? DEFAULT_ADDRESS;
  if (!HostPort.safeParse(address).success) {
    const where = env.TEMPORAL_ADDRESS !== undefined ? 'TEMPORAL_ADDRESS' : 'the Temporal profile address';
    throw new ConfigError(
      `${where} "${address}" is not an address like temporal.example.com:7233.`,
      'Give host and port without a scheme, e.g. TEMPORAL_ADDRESS=temporal.example.com:7233.',
    );
  }
  const tls = merged.tls;
  if (tls && !tls.disabled && hasPem(tls, 'clientCert') !== hasPem(tls, 'clientKey')) {
    const only = hasPem(tls, 'clientCert') ? 'certificate' : 'key';
    throw new ConfigError(
      `The Temporal TLS client ${only} is set without its ${only === 'key' ? 'certificate' : 'key'} (${sources(configFile)}).`,
      'Set both temporal.tls.clientCertPath and clientKeyPath, or TEMPORAL_TLS_CLIENT_CERT_PATH and TEMPORAL_TLS_CLIENT_KEY_PATH.',
    );
  }
  return {
    address,
    namespace: merged.namespace ?? DEFAULT_NAMESPACE,
    ...(merged.apiKey !== undefined ? { apiKey: merged.apiKey } : {}),
    ...(tls !== undefined ? { tls } : {}),
    ...(merged.grpcMeta !== undefined && Object.keys(merged.grpcMeta).length > 0
      ? { grpcMeta: merged.grpcMeta }
      : {}),
  };
}

/** What `Connection.connect` (client) and `NativeConnection.connect` (worker) both take. */
export interface TemporalConnectionOptions {
  address: string;
  tls?: ReturnType<typeof toClientOptions>['connectionOptions']['tls'];
  apiKey?: string;
  metadata?: Record<string, string>;
}

/** The connection options, with the PEM files read now: a missing file is a config error naming it. */
export function connectionOptionsOf(settings: TemporalSettings): TemporalConnectionOptions {
  const tls = tlsOf(settings);
  return {
    address: settings.address,
    ...(tls !== undefined ? { tls } : {}),
    ...(settings.apiKey !== undefined ? { apiKey: settings.apiKey } : {}),
    ...(settings.grpcMeta !== undefined ? { metadata: settings.grpcMeta } : {}),
  };
}

/** envconfig's own mapping (an API key alone turns TLS on), with an unreadable PEM named by its field. */
function tlsOf(settings: TemporalSettings): TemporalConnectionOptions['tls'] {
  try {
    return toClientOptions(profileOf(settings)).connectionOptions.tls;
  } catch (error) {
    const { path } = error as NodeJS.ErrnoException;
    if (path === undefined) throw error;
    const pem = PEMS.find((name) => settings.tls?.[`${name}Path`] === path) ?? 'clientCert';
    throw new ConfigError(
      `Cannot read the Temporal TLS ${PEM_NAMES[pem]} ${path}: ${readProblem(error)}.`,
      `Point temporal.tls.${pem}Path (or ${PEM_ENV[pem]}) at a readable PEM file.`,
    );
  }
}

function temporalProfile(env: Env): ClientConfigProfile {
  const file = env.TEMPORAL_CONFIG_FILE;
  if (file !== undefined && !existsSync(file)) {
    throw new ConfigError(
      `TEMPORAL_CONFIG_FILE names ${file}, which does not exist.`,
      'Point it at your temporal.toml, or unset it.',
    );
  }
  try {
    return loadClientConfigProfile({ disableEnv: true, overrideEnvVars: env });
  } catch (error) {
    throw new ConfigError(
      `The Temporal profile ${env.TEMPORAL_PROFILE ?? 'default'} (${file ?? '~/.config/temporalio/temporal.toml'}) does not load: ${(error as Error).message}.`,
      'Fix the TOML file or unset TEMPORAL_PROFILE / TEMPORAL_CONFIG_FILE.',
    );
  }
}

function sources(configFile: string | undefined): string {
  return [configFile ? `config ${configFile}` : undefined, 'TEMPORAL_TLS_*', 'the Temporal profile']
    .filter(Boolean)
    .join(', ');
}

function hasPem(tls: TemporalTlsFile, pem: (typeof PEMS)[number]): boolean {
  return tls[`${pem}Path`] !== undefined || tls[`${pem}Data`] !== undefined;
}

function fileLayer(section: TemporalFile): Layer {
  const { tls, ...rest } = section;
  if (tls === undefined) return rest;
  return { ...rest, tls: typeof tls === 'boolean' ? (tls ? {} : { disabled: true }) : tls };
}

function sourceFields(
  pem: (typeof PEMS)[number],
  source: ConfigDataSource | undefined,
): Partial<TemporalTlsFile> {
  if (source === undefined) return {};
  if ('path' in source) return { [`${pem}Path`]: source.path };
  return { [`${pem}Data`]: typeof source.data === 'string' ? source.data : decode(source.data) };
}

function tlsLayer(tls: ClientConfigTLS): TemporalTlsFile {
  return {
    ...(tls.disabled !== undefined ? { disabled: tls.disabled } : {}),
    ...(tls.serverName !== undefined ? { serverName: tls.serverName } : {}),
    ...sourceFields('serverCaCert', tls.serverCACert),
    ...sourceFields('clientCert', tls.clientCert),
    ...sourceFields('clientKey', tls.clientKey),
  };
}

function layerOf(profile: ClientConfigProfile): Layer {
  return {
    ...(profile.address !== undefined ? { address: profile.address } : {}),
    ...(profile.namespace !== undefined ? { namespace: profile.namespace } : {}),
    ...(profile.apiKey !== undefined ? { apiKey: profile.apiKey } : {}),
    ...(profile.tls !== undefined ? { tls: tlsLayer(profile.tls) } : {}),
    ...(profile.grpcMeta !== undefined ? { grpcMeta: profile.grpcMeta } : {}),
  };
}

/** `upper` wins field by field; a PEM given in `upper` (path or data) replaces `lower`'s either way. */
function mergeLayers(lower: Layer, upper: Layer): Layer {
  const merged: Layer = { ...lower, ...upper };
  if (lower.tls && upper.tls) {
    const tls: TemporalTlsFile = { ...lower.tls, ...upper.tls };
    for (const pem of PEMS) {
      if (hasPem(upper.tls, pem)) {
        delete tls[`${pem}Path`];
        delete tls[`${pem}Data`];
        Object.assign(tls, sourceFields(pem, sourceOf(upper.tls, pem)));
      }
    }
    merged.tls = tls;
  }
  if (lower.grpcMeta || upper.grpcMeta) merged.grpcMeta = { ...lower.grpcMeta, ...upper.grpcMeta };
  return merged;
}

function sourceOf(tls: TemporalTlsFile, pem: (typeof PEMS)[number]): ConfigDataSource | undefined {
  const path = tls[`${pem}Path`];
  if (path !== undefined) return { path };
  const data = tls[`${pem}Data`];
  return data !== undefined ? { data } : undefined;
}

function profileOf(settings: TemporalSettings): ClientConfigProfile {
  const tls = settings.tls;
  return {
    address: settings.address,
    namespace: settings.namespace,
    ...(settings.apiKey !== undefined ? { apiKey: settings.apiKey } : {}),
    ...(settings.grpcMeta !== undefined ? { grpcMeta: settings.grpcMeta } : {}),
    ...(tls !== undefined
      ? {
          tls: {
            ...(tls.disabled !== undefined ? { disabled: tls.disabled } : {}),
            ...(tls.serverName !== undefined ? { serverName: tls.serverName } : {}),
            ...(sourceOf(tls, 'serverCaCert') ? { serverCACert: sourceOf(tls, 'serverCaCert') } : {}),
            ...(sourceOf(tls, 'clientCert') ? { clientCert: sourceOf(tls, 'clientCert') } : {}),
            ...(sourceOf(tls, 'clientKey') ? { clientKey: sourceOf(tls, 'clientKey') } : {}),
          },
        }
      : {}),
  };
}
