import { createHash } from 'node:crypto';
import type Dockerode from 'dockerode';
import type { ContainerSpec } from './container-spec';
import type { Placement } from './placement';

const NANOS_PER_SECOND = 1_000_000_000;
const HEALTH_TEST_KINDS = new Set(['CMD', 'CMD-SHELL', 'NONE']);

/** A stable digest of a container spec; equal specs hash equally whatever their key order. */
export function specHash(spec: ContainerSpec): string {
  return createHash('sha256').update(canonicalJson(spec)).digest('hex').slice(0, 16);
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** Docker's health test must start with CMD, CMD-SHELL or NONE; a bare argv means CMD. */
export function healthTest(test: string[]): string[] {
  return HEALTH_TEST_KINDS.has(test[0] ?? '') ? test : ['CMD', ...test];
}

function nanoseconds(seconds: number): number {
  return Math.round(seconds * NANOS_PER_SECOND);
}

/**
 * A `-v`-style bind: like `docker run -v`, the engine creates a missing source directory (the engines
 * here predate bind CreateMountpoint), which is how a recreated container lands on an empty new path.
 */
function bind(source: string, target: string, readOnly: boolean): string {
  if (source.includes(':') || target.includes(':'))
    throw new Error(`cannot bind ${source} to ${target}: ':' in a path`);
  return `${source}:${target}:${readOnly ? 'ro' : 'rw'}`;
}

/** The create options for one container spec: bind mounts, published ports, env, healthcheck, labels. */
export function containerCreateOptions(
  spec: ContainerSpec,
  placement: Placement,
): Dockerode.ContainerCreateOptions {
  const hostPath = placement.hostPath ?? ((p: string) => p);
  const exposedPorts: Record<string, object> = {};
  const portBindings: Record<string, { HostIp: string; HostPort: string }[]> = {};
  // On the host network the container binds the node's ports itself; there is nothing to publish.
  for (const port of spec.network === 'host' ? [] : spec.ports) {
    const key = `${port.container}/tcp`;
    exposedPorts[key] = {};
    (portBindings[key] ??= []).push({ HostIp: port.hostIp, HostPort: String(port.host) });
  }
  const health = spec.healthcheck;
  return {
    name: placement.name,
    Image: spec.image,
    ...(spec.command ? { Cmd: spec.command } : {}),
    Env: Object.entries({ ...spec.env, ...placement.env }).map(([key, value]) => `${key}=${value}`),
    Labels: {
      ...placement.labels,
      ...(placement.specHashLabel ? { [placement.specHashLabel]: specHash(spec) } : {}),
    },
    ExposedPorts: exposedPorts,
    ...(health
      ? {
          Healthcheck: {
            Test: healthTest(health.test),
            Interval: nanoseconds(health.intervalSeconds),
            Timeout: nanoseconds(health.timeoutSeconds),
            Retries: health.retries,
            StartPeriod: nanoseconds(health.startPeriodSeconds),
          },
        }
      : {}),
    HostConfig: {
      Binds: spec.mounts.map((m) => bind(hostPath(m.hostPath), m.containerPath, m.readOnly)),
      PortBindings: portBindings,
      NetworkMode: spec.network,
      ...placement.hostConfig,
    },
  };
}
