import { z } from 'zod';
import { AbsolutePath, Name } from '../base/value-schemas';

/** What a container is made from: the spec a mesh module lists and the Docker engine runs. */

export const MountSpec = z.strictObject({
  hostPath: AbsolutePath,
  containerPath: AbsolutePath,
  readOnly: z.boolean().default(false),
});
export type MountSpec = z.infer<typeof MountSpec>;

export const PortSpec = z.strictObject({
  host: z.number().int().min(1).max(65535),
  container: z.number().int().min(1).max(65535),
  hostIp: z.string().default('127.0.0.1'),
});

export const HealthcheckSpec = z.strictObject({
  test: z.array(z.string()).min(1),
  intervalSeconds: z.number().positive().default(2),
  timeoutSeconds: z.number().positive().default(2),
  retries: z.number().int().min(1).default(3),
  startPeriodSeconds: z.number().min(0).default(0),
});

export const ContainerSpec = z.strictObject({
  name: Name,
  image: z.string().min(1),
  command: z.array(z.string()).optional(),
  mounts: z.array(MountSpec).default([]),
  ports: z.array(PortSpec).default([]),
  /** `host` shares the node's network, as edge proxies that bind the node's public ports do. */
  network: z.enum(['bridge', 'host']).default('bridge'),
  env: z.record(z.string(), z.string()).default({}),
  healthcheck: HealthcheckSpec.optional(),
});
export type ContainerSpec = z.infer<typeof ContainerSpec>;
