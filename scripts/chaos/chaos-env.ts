import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { DockerEngine, BASE_IMAGE } from '../../docker/engine';
import { startDevServer, type DevServer, type DevServerOptions } from '../../worker/dev-server';
import { freeLocalPort } from '../../worker/ports';
import { findTemporalCli } from '../../worker/temporal-binary';
import { writeWorkflowBundle } from '../../worker/workflow-bundle';

/**
 * The stack the experiments inject faults into: a Temporal dev server of the suite's own on free ports with
 * its SQLite file in a scratch dir (so it can be stopped and started again on the same database), the
 * workflows bundled once, and the Docker engine. It sets TEMPORAL_ADDRESS and MESH_WORKFLOW_BUNDLE in this
 * process's environment, so test/support's worlds, worker processes and the CLI all use this server.
 */
export class ChaosEnv {
  private server: DevServer;
  private connection: Connection | undefined;

  private constructor(
    private readonly serverOptions: DevServerOptions,
    server: DevServer,
    readonly scratch: string,
    readonly engine: DockerEngine,
  ) {
    this.server = server;
  }

  static async start(log: (line: string) => void): Promise<ChaosEnv> {
    const cli = findTemporalCli();
    if (!cli) throw new Error('no temporal CLI on PATH (scripts/bootstrap.sh installs it)');
    const engine = new DockerEngine();
    await engine.ping();
    if (!(await engine.inspectImage(BASE_IMAGE)))
      throw new Error(`${BASE_IMAGE} is missing (scripts/bootstrap.sh builds it)`);
    const scratch = await mkdtemp(join(tmpdir(), 'mesh-chaos-'));
    const serverOptions: DevServerOptions = {
      cli,
      stateDir: join(scratch, 'temporal'),
      ip: '127.0.0.1',
      port: await freeLocalPort(),
      uiPort: await freeLocalPort(),
      namespace: 'default',
    };
    const server = await startDevServer(serverOptions, new AbortController().signal).catch(
      async (error: unknown) => {
        await rm(scratch, { recursive: true, force: true });
        throw error;
      },
    );
    const env = new ChaosEnv(serverOptions, server, scratch, engine);
    log(`Temporal dev server on ${server.address}, its database ${server.dbFile}`);
    const bundle = join(scratch, 'workflows.js');
    await writeWorkflowBundle(bundle);
    delete process.env.MESH_CONFIG;
    Object.assign(process.env, {
      TEMPORAL_ADDRESS: server.address,
      TEMPORAL_NAMESPACE: 'default',
      MESH_WORKFLOW_BUNDLE: bundle,
    });
    return env;
  }

  get address(): string {
    return this.server.address;
  }

  /** A client of the suite's server (one connection, reconnected by the SDK after a server restart). */
  async client(): Promise<Client> {
    this.connection ??= await Connection.connect({ address: this.server.address });
    return new Client({ connection: this.connection, namespace: 'default' });
  }

  /** Stops the dev server (SIGTERM, it closes its database) and starts it on the same port and file. */
  async restartServer(downMs = 0): Promise<void> {
    await this.server.stop();
    if (downMs > 0) await new Promise((resolve) => setTimeout(resolve, downMs));
    this.server = await startDevServer(this.serverOptions, new AbortController().signal);
  }

  async close(): Promise<void> {
    await this.connection?.close().catch(() => undefined);
    await this.server.stop();
    await rm(this.scratch, { recursive: true, force: true });
  }
}
