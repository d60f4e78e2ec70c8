import { mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client, WorkflowHandle } from '@temporalio/client';
import type { ModuleSpecInput, PushReceipt } from '../../mesh/schemas';
import type { RunbookStatus } from '../../workflows/contracts';
import type { Lab } from './lab';
import { statusWhen } from './runbooks';

const IMAGE = 'mesh-local/busybox:latest';
export const PUBLIC_NAMES = ['git.example.test', 'photos.example.test', 'mail.example.test'];
export const PUBLIC_PORT = 80;
export const STAGING_PORT = 8081;

const health = (port: number) => ({
  test: ['CMD', 'wget', '-q', '-O', '/dev/null', `http://127.0.0.1:${port}/`],
  intervalSeconds: 1,
  retries: 3,
});

/**
 * Each page names its node, and ends after the name (`edge1` must not match `edge10`): the controller tells
 * every container where it runs (MESHCTL_NODE).
 */
const page = (module: string, dir: string) =>
  `mkdir -p ${dir} && echo "served by ${module} on $MESHCTL_NODE." > ${dir}/index.html`;

/**
 * caddy on a lab host: the public names on port 80 of the host's own address. It stops on SIGTERM as a real
 * caddy does (and the demo's): a shell as PID 1 ignores the signal, and each stop would wait out Docker's 10 s.
 */
export const CADDY: ModuleSpecInput = {
  module: 'caddy',
  containers: [
    {
      name: 'edge',
      image: IMAGE,
      network: 'host',
      command: [
        'sh',
        '-c',
        `${page('caddy', '/www')} && httpd -f -p 0.0.0.0:${PUBLIC_PORT} -h /www & trap 'kill $!; exit 0' TERM; wait`,
      ],
      healthcheck: health(PUBLIC_PORT),
    },
  ],
};

/** route-proxy: answers on its staging port at once, takes port 80 once caddy frees it. */
export const ROUTE_PROXY: ModuleSpecInput = {
  module: 'route-proxy',
  dataDirs: ['/var/lib/route-proxy/www', '/var/lib/route-proxy/ca', '/var/lib/route-proxy/dns'],
  containers: [
    {
      name: 'edge',
      image: IMAGE,
      network: 'host',
      command: [
        'sh',
        '-c',
        `${page('route-proxy', '/www')} && httpd -p 0.0.0.0:${STAGING_PORT} -h /www && until httpd -f -p 0.0.0.0:${PUBLIC_PORT} -h /www; do sleep 0.5; done`,
      ],
      mounts: [{ hostPath: '/var/lib/route-proxy/www', containerPath: '/www' }],
      healthcheck: health(STAGING_PORT),
    },
    {
      name: 'ca',
      image: IMAGE,
      command: ['sleep', '1000000'],
      mounts: [{ hostPath: '/var/lib/route-proxy/ca', containerPath: '/ca' }],
    },
    {
      name: 'dns',
      image: IMAGE,
      command: ['sleep', '1000000'],
      mounts: [{ hostPath: '/var/lib/route-proxy/dns', containerPath: '/dns' }],
    },
  ],
};

/** A forge under roll-out whose data is on /srv/forge: incident 2's module. */
export const FORGE: ModuleSpecInput = {
  module: 'forge',
  upgradePolicy: 'roll-out',
  dataDirs: ['/srv/forge'],
  containers: [
    {
      name: 'web',
      image: 'mesh-local/forge:latest',
      command: ['sh', '-c', 'exec httpd -f -p 0.0.0.0:8080 -h /data'],
      mounts: [{ hostPath: '/srv/forge', containerPath: '/data' }],
      healthcheck: health(8080),
    },
  ],
};

/** Applies a module spec through the controller's CLI, as an operator with a module file would. */
export async function applyModule(lab: Lab, spec: ModuleSpecInput): Promise<void> {
  const file = join(tmpdir(), `lab-module-${spec.module}-${process.pid}.json`);
  await writeFile(file, JSON.stringify(spec));
  await lab.meshctl('module', 'apply', '-f', file);
}

/** Pushes the node and waits until its agent reports the push applied in full. */
export async function pushApplied(lab: Lab, node: string): Promise<void> {
  const receipt = (await lab.meshctl('push', node)) as PushReceipt;
  const deadline = Date.now() + 60_000;
  for (;;) {
    const report = (await lab.meshctl('node', 'report', node, receipt.pushId)) as {
      applied: number;
      failed: unknown[];
    } | null;
    if (report) {
      if (report.applied !== receipt.sent || report.failed.length > 0)
        throw new Error(`${node} applied ${report.applied} of ${receipt.sent}: ${JSON.stringify(report)}`);
      return;
    }
    if (Date.now() > deadline) throw new Error(`${node} did not report ${receipt.pushId}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Adds the lab's hosts to the controller as nodes (adopted: existed before mesh). */
export async function addNodes(lab: Lab, nodes: string[], adopted = true): Promise<void> {
  for (const node of nodes)
    await lab.meshctl('node', 'add', node, '--agent', lab.agentUrl(node), ...(adopted ? ['--adopted'] : []));
}

/** Each node serves the public names with caddy; with `leftovers`, route-proxy's dirs wait on its disk. */
export async function seedEdges(lab: Lab, nodes: string[], leftovers: string[] = []): Promise<void> {
  await addNodes(lab, nodes);
  await applyModule(lab, CADDY);
  await applyModule(lab, ROUTE_PROXY);
  for (const node of nodes) {
    await lab.meshctl('assign', 'caddy', '--to', node);
    await pushApplied(lab, node);
  }
  for (const node of leftovers)
    for (const dir of ROUTE_PROXY.dataDirs ?? []) await mkdir(lab.onDisk(node, dir), { recursive: true });
}

/** The edge flip's options for `mesh runbook plan|start edge-flip` on one node of the lab. */
export function edgeFlipArgs(lab: Lab, node: string): string[] {
  const ip = lab.host(node).ip;
  return [
    '--node',
    node,
    '--module',
    'route-proxy',
    '--predecessor',
    'caddy',
    ...PUBLIC_NAMES.flatMap((name) => ['--public-name', name]),
    '--public-address',
    `http://${ip}:${PUBLIC_PORT}`,
    '--successor-address',
    `http://${ip}:${STAGING_PORT}`,
    '--successor-marker',
    `served by route-proxy on ${node}.`,
    '--predecessor-marker',
    `served by caddy on ${node}.`,
  ];
}

/**
 * A fleet's options over lab hosts: addresses and markers carry `{node}` (`<host>.lab` resolves to each).
 * Every node asks its own approval unless `approvals` says otherwise.
 */
export function fleetArgs(nodes: string[], waveSize = 2, approvals = 'each-node'): string[] {
  return [
    '--nodes',
    nodes.join(','),
    '--wave-size',
    String(waveSize),
    '--approvals',
    approvals,
    '--module',
    'route-proxy',
    '--predecessor',
    'caddy',
    ...PUBLIC_NAMES.flatMap((name) => ['--public-name', name]),
    '--public-address',
    `http://{node}.lab:${PUBLIC_PORT}`,
    '--successor-address',
    `http://{node}.lab:${STAGING_PORT}`,
    '--successor-marker',
    'served by route-proxy on {node}.',
    '--predecessor-marker',
    'served by caddy on {node}.',
  ];
}

/** The forge on `node`, serving its data dir, with files the move must carry over. */
export async function seedForge(lab: Lab, node: string): Promise<void> {
  await addNodes(lab, [node], false);
  await applyModule(lab, FORGE);
  const data = lab.onDisk(node, '/srv/forge');
  await mkdir(join(data, 'repos', 'mesh.git'), { recursive: true });
  await writeFile(join(data, 'index.html'), `served by forge from its data dir on ${node}\n`);
  await writeFile(join(data, 'repos', 'mesh.git', 'HEAD'), 'ref: refs/heads/main\n');
  await lab.meshctl('assign', 'forge', '--to', node);
  await pushApplied(lab, node);
}

/** The runbook's status once `until` holds; the lab answers slower than the dev server, so two minutes by default. */
export const labStatusWhen = (
  handle: WorkflowHandle,
  until: (status: RunbookStatus) => boolean,
  timeoutMs = 120_000,
): Promise<RunbookStatus> => statusWhen(handle, until, timeoutMs);

/**
 * The run of `workflowId` started at or after `since`, once it exists: until a fleet starts a node's runbook,
 * the id answers with the node's last run, a closed run of an earlier story (whose status may show any wait).
 */
export async function labRunSince(
  client: Client,
  workflowId: string,
  since: Date,
  timeoutMs = 240_000,
): Promise<WorkflowHandle> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const described = await client.workflow
      .getHandle(workflowId)
      .describe()
      .catch(() => undefined);
    if (described && described.startTime >= since)
      return client.workflow.getHandle(workflowId, described.runId);
    if (Date.now() > deadline)
      throw new Error(`no run of ${workflowId} started since ${since.toISOString()}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
