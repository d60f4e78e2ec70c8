import { cliEnv, spawnCli } from './cli';

/**
 * `mesh runbook worker --json` (the compiled CLI, as an operator runs it; with the local mesh it also serves
 * every node's queue) in a child process, for an experiment to SIGKILL. It starts in seconds where a
 * worker run through tsx needs tens of seconds on a loaded machine, so a loop can kill it often.
 */
export class CliWorker {
  private constructor(
    private readonly child: ReturnType<typeof spawnCli>,
    private readonly exited: Promise<void>,
    /** Its Temporal identity (`pid@host`), as pending activities name their worker. */
    readonly identity: string,
  ) {}

  /** Starts one on `taskQueue` over the local mesh in `stateDir` and waits until it polls. */
  static async start(taskQueue: string, stateDir: string, readyTimeoutMs = 120_000): Promise<CliWorker> {
    const child = spawnCli(['runbook', 'worker', '--json'], {
      ...cliEnv(taskQueue, stateDir),
      MESH_STATE_DIR: stateDir,
    });
    const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
    const identity = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`mesh runbook worker did not poll within ${readyTimeoutMs} ms`));
      }, readyTimeoutMs);
      const look = () => {
        const ready = /"identity": "([^"]+)"/.exec(child.output().stdout);
        if (!ready?.[1]) return;
        clearTimeout(timer);
        child.stdout?.off('data', look);
        resolve(ready[1]);
      };
      child.stdout?.on('data', look);
      void exited.then(() => {
        clearTimeout(timer);
        reject(new Error(`mesh runbook worker exited first: ${child.output().stderr.slice(-500)}`));
      });
    });
    return new CliWorker(child, exited, identity);
  }

  /** SIGKILL, as a crash or an OOM kill: no drain, no goodbye to the server. Waits for the exit. */
  async kill(): Promise<void> {
    this.child.kill('SIGKILL');
    await this.exited;
  }

  /** SIGTERM: it drains and stops. */
  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 15_000);
    await this.exited;
    clearTimeout(timer);
  }
}
