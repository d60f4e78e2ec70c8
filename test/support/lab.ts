import { execFile, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { lastRunOf, needsClearing } from '../../activities/runbook/last-run';
import { isLeft, readNodeMark } from '../../activities/runbook/node-marks';
import { markSourceOf } from '../../activities/runbook/node-marks-sdk';
import { z } from 'zod';
import { DockerEngine } from '../../docker/engine';
import { acquireLock } from '../../mesh/local/lock';
import { runbookWorkflowId } from '../../workflows/contracts';
import { NODE_MARK_TYPE } from '../../workflows/node-mark-contracts';

const run = promisify(execFile);
const ROOT = join(__dirname, '..', '..');

/** lab.json as scripts/lab/up.sh writes it (schema mesh-lab/1), the parts the tests read. */
const LabHost = z.object({
  name: z.string(),
  netns: z.string(),
  ip: z.string(),
  hostname: z.string(),
  dockerSocket: z.string(),
  root: z.string(),
  machineId: z.string(),
});
export type LabHost = z.infer<typeof LabHost>;

const LabFile = z.object({
  schema: z.literal('mesh-lab/1'),
  dir: z.string(),
  temporal: z.object({ address: z.string(), namespace: z.string() }),
  ui: z.object({ url: z.string(), version: z.string(), pidFile: z.string() }),
  network: z.object({ gateway: z.string() }),
  postgres: z.object({ host: z.string(), port: z.number(), user: z.string(), passwordFile: z.string() }),
  hosts: z.array(LabHost),
  mesh: z.object({
    controller: z.string(),
    meshctl: z.string(),
    agents: z.record(z.string(), z.string()),
    runbookConfig: z.string(),
    nodeConfigs: z.record(z.string(), z.string()),
  }),
});

/** This process's hold on the lab (Lab.story); released when the process ends. */
let exclusive: Promise<void> | undefined;

/** The directories every lab story may write on a host's disk; a reset empties them. */
const STORY_PATHS = ['var/lib', 'srv'];

/** The production-shaped lab (scripts/lab/up.sh), as its tests see it: from outside, like an operator. */
export class Lab {
  readonly dir: string;
  readonly temporal: { address: string; namespace: string };
  readonly uiUrl: string;
  /** The lab's ui-server: its version and the pidfile of the running one. */
  readonly ui: z.infer<typeof LabFile>['ui'];
  /** This machine's address on the hosts' bridge (where the frontend listens). */
  readonly gateway: string;
  readonly hosts: LabHost[];
  readonly postgres: z.infer<typeof LabFile>['postgres'];
  readonly mesh: z.infer<typeof LabFile>['mesh'];
  private readonly engines = new Map<string, DockerEngine>();

  private constructor(file: z.infer<typeof LabFile>) {
    this.dir = file.dir;
    this.temporal = file.temporal;
    this.uiUrl = file.ui.url;
    this.ui = file.ui;
    this.gateway = file.network.gateway;
    this.hosts = file.hosts;
    this.postgres = file.postgres;
    this.mesh = file.mesh;
  }

  /**
   * The lab for one story at a time: open, this process alone on it (a lock held until the process ends, so
   * a test file, the chaos suite and the bench never run stories on the same hosts at once), and reset.
   */
  static async story(): Promise<Lab> {
    const lab = await Lab.ready();
    if (!exclusive)
      exclusive = acquireLock(join(lab.dir, 'stories.lock'), { timeoutMs: 60 * 60_000, pollMs: 500 }).then(
        () => undefined,
      );
    await exclusive;
    for (const said of await lab.reset()) process.stderr.write(`lab reset: ${said}\n`);
    return lab;
  }

  /**
   * The lab once it is up. The test command brings it up beside the first tests (MESH_LAB_UP_LOG names
   * up.sh's output; `<log>.rc` its exit code once it ended): wait for that, and say why when it failed.
   */
  static async ready(): Promise<Lab> {
    const log = process.env.MESH_LAB_UP_LOG;
    if (log) await upEnded(log);
    return Lab.open();
  }

  /** The lab that is up; one sentence saying how to bring it up when it is not. */
  static open(): Lab {
    const dir = process.env.MESH_LAB_DIR ?? join(homedir(), '.local/state/mesh/lab');
    let text: string;
    try {
      text = readFileSync(join(dir, 'lab.json'), 'utf8');
    } catch {
      throw new Error(`the lab is not up (no ${dir}/lab.json): run scripts/lab/up.sh`);
    }
    return new Lab(LabFile.parse(JSON.parse(text)));
  }

  host(name: string): LabHost {
    const host = this.hosts.find((h) => h.name === name);
    if (!host) throw new Error(`the lab has no host ${name}`);
    return host;
  }

  /** The host's own Docker engine, reached as the lab's tests reach it (its socket), never through mesh. */
  engine(name: string): DockerEngine {
    let engine = this.engines.get(name);
    if (!engine)
      this.engines.set(name, (engine = new DockerEngine({ socketPath: this.host(name).dockerSocket })));
    return engine;
  }

  /** A path on the host's own disk. */
  onDisk(name: string, path: string): string {
    return join(this.host(name).root, path);
  }

  agentUrl(name: string): string {
    const url = this.mesh.agents[name];
    if (!url) throw new Error(`the lab has no agent on ${name}`);
    return url;
  }

  /** The controller's CLI, as an operator runs it; its JSON output. */
  async meshctl(...args: string[]): Promise<unknown> {
    const { stdout } = await run(this.mesh.meshctl, args, {
      env: { ...process.env, MESHCTL_SERVER: this.mesh.controller },
    });
    return JSON.parse(stdout) as unknown;
  }

  /** `mesh` (this project's CLI) against the lab: its config, Temporal and namespace. Never throws on exit codes. */
  cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    return this.cliOn('mesh-runbook', ...args);
  }

  /** The same on another task queue (a story with workers of its own). */
  async cliOn(
    taskQueue: string,
    ...args: string[]
  ): Promise<{ code: number; stdout: string; stderr: string }> {
    const env: NodeJS.ProcessEnv = {
      ...this.env(this.mesh.runbookConfig),
      MESH_TASK_QUEUE: taskQueue,
      NO_COLOR: '1',
    };
    try {
      const { stdout, stderr } = await run(process.execPath, [join(ROOT, 'bin', 'mesh.js'), ...args], {
        env,
        maxBuffer: 16 * 1024 * 1024,
      });
      return { code: 0, stdout, stderr };
    } catch (error) {
      const e = error as { code?: number; stdout?: string; stderr?: string };
      if (typeof e.code !== 'number') throw error;
      return { code: e.code, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
    }
  }

  /** The environment of a `mesh` process on the lab with this config, nothing of the harness's. */
  env(config: string): NodeJS.ProcessEnv {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      MESH_CONFIG: config,
      TEMPORAL_ADDRESS: this.temporal.address,
      TEMPORAL_NAMESPACE: this.temporal.namespace,
    };
    for (const name of ['MESH_TASK_QUEUE', 'MESH_ADAPTER', 'MESH_LOCAL_STATE', 'MESH_WORKFLOW_BUNDLE'])
      delete env[name];
    return env;
  }

  /**
   * `mesh runbook worker <args>` as the lab runs its own, inside `host`'s network namespace (or outside every
   * host), on `taskQueue`; resolves once it polls. `stop` ends it with SIGTERM.
   */
  async worker(
    where: { host?: string; config: string; taskQueue: string; env?: NodeJS.ProcessEnv },
    ...args: string[]
  ): Promise<{ stop(): void }> {
    const command = [process.execPath, join(ROOT, 'bin', 'mesh.js'), 'runbook', 'worker', ...args, '--json'];
    const child = where.host
      ? spawn('nsenter', [`--net=/run/netns/${this.host(where.host).netns}`, ...command], {
          stdio: ['ignore', 'pipe', 'pipe'],
          env: { ...this.env(where.config), MESH_TASK_QUEUE: where.taskQueue, ...where.env },
        })
      : spawn(command[0] ?? '', command.slice(1), {
          stdio: ['ignore', 'pipe', 'pipe'],
          env: { ...this.env(where.config), MESH_TASK_QUEUE: where.taskQueue, ...where.env },
        });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr = `${stderr}${chunk.toString()}`.slice(-2_000)));
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => chunk.toString().includes('"identity"') && resolve());
      child.on('exit', (code) => reject(new Error(`the worker exited with ${code}: ${stderr}`)));
    });
    return { stop: () => void child.kill('SIGTERM') };
  }

  /** A Temporal client of the lab's cluster; close its connection when done. */
  async client(): Promise<{ client: Client; connection: Connection }> {
    const connection = await Connection.connect({ address: this.temporal.address });
    return { client: new Client({ connection, namespace: this.temporal.namespace }), connection };
  }

  /**
   * Every story starts from nothing: its open runbooks terminated, each host a runbook left needing a
   * person's look cleared as an operator clears it (`mesh runbook clear`; what it said is returned), the
   * controller forgets nodes and modules, each host's agent removes its containers, and the story paths on
   * each host's disk are emptied.
   */
  async reset(): Promise<string[]> {
    const cleared: string[] = [];
    const { client, connection } = await this.client();
    try {
      // Node marks stay: they say what a terminated runbook left, and the clearance below closes them.
      const open = `ExecutionStatus = 'Running' AND WorkflowType != '${NODE_MARK_TYPE}'`;
      for await (const run of client.workflow.list({ query: open }))
        await client.workflow
          .getHandle(run.workflowId, run.runId)
          .terminate('lab reset')
          .catch(() => undefined);
      for (const host of this.hosts) {
        const said = await this.clearIfLeft(client, host.name);
        if (said) cleared.push(said);
      }
    } finally {
      await connection.close();
    }
    await this.meshctl('reset');
    for (const host of this.hosts) {
      const response = await fetch(`${this.agentUrl(host.name)}/reset`, { method: 'POST' });
      if (!response.ok) throw new Error(`the agent of ${host.name} did not reset: ${response.status}`);
      for (const path of STORY_PATHS)
        await rm(this.onDisk(host.name, path), { recursive: true, force: true });
    }
    return cleared;
  }

  /**
   * A node an earlier story left needing a person's look (its runbook's rollback failed, or it was
   * terminated while it changed the node) would refuse every later story's runbook: cleared the way an
   * operator clears it, through `mesh runbook clear`: what it said, as one line.
   */
  private async clearIfLeft(client: Client, node: string): Promise<string | undefined> {
    const mark = await readNodeMark(markSourceOf(client), node);
    const last = await lastRunOf(client, runbookWorkflowId(node));
    if (!isLeft(mark) && !needsClearing(last)) return undefined;
    const cleared = await this.cli(
      'runbook',
      'clear',
      node,
      '--reason',
      'the lab resets its hosts between stories',
      '--as',
      'lab-reset',
    );
    if (cleared.code !== 0)
      throw new Error(`lab reset: mesh runbook clear ${node} exited ${cleared.code}: ${cleared.stderr}`);
    return cleared.stdout.trim().replace(/\n/g, '; ');
  }
}

const UP_WAIT_MS = 30 * 60_000;

/** Until scripts/lab/up.sh, started by the test command in the background, has ended; throws if it failed. */
async function upEnded(log: string): Promise<void> {
  const deadline = Date.now() + UP_WAIT_MS;
  for (;;) {
    const rc = await readFile(`${log}.rc`, 'utf8').then(
      (text) => text.trim(),
      () => undefined,
    );
    if (rc === '0') return;
    if (rc !== undefined || Date.now() > deadline) {
      const tail = (await readFile(log, 'utf8').catch(() => '')).trimEnd().split('\n').slice(-15).join('\n');
      throw new Error(
        `the lab did not come up (scripts/lab/up.sh ${rc === undefined ? 'did not end in 30 minutes' : `exited ${rc}`}); its output ends:\n${tail}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
}
