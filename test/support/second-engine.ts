import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomInt } from 'node:crypto';
import { closeSync, openSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { promisify } from 'node:util';
import { BASE_IMAGE, DockerEngine } from '../../docker/engine';
import { freePort } from './ports';
import { makeEngineCerts, type EngineCerts } from './second-engine-certs';

const run = promisify(execFile);

/**
 * A second real Docker engine on this machine, standing in for a remote node's: its own dockerd with its
 * own socket, data root, exec root, pidfile, config file and bridge, and optionally a `--tlsverify` tcp
 * port on 127.0.0.1. The base image is copied in from the main engine (there is no registry). `stop`
 * removes all of it. Needs root, as any dockerd does.
 */
export class SecondEngine {
  private constructor(
    private dockerd: ChildProcess,
    private exited: Promise<void>,
    private readonly dir: string,
    private readonly bridge: string,
    readonly socket: string,
    readonly tls: { port: number; certs: EngineCerts } | undefined,
  ) {}

  static async start(options: { tls?: boolean } = {}): Promise<SecondEngine> {
    const dir = await mkdtemp('/tmp/mesh-engine-'); // short: a unix socket path has ~100 bytes
    const bridge = `mesh${randomBytes(3).toString('hex')}`;
    await ownBridge(bridge);
    const tls = options.tls
      ? { port: await freePort(), certs: await makeEngineCerts(await mkdtemp(join(dir, 'tls-'))) }
      : undefined;
    const socket = join(dir, 'docker.sock');
    await writeFile(join(dir, 'daemon.json'), '{}');
    const { dockerd, exited } = spawnDockerd(dir, socket, bridge, tls);
    const engine = new SecondEngine(dockerd, exited, dir, bridge, socket, tls);
    try {
      await engine.ready();
      await copyImage(BASE_IMAGE, socket);
    } catch (error) {
      await engine.stop();
      throw error;
    }
    return engine;
  }

  /** A client for the engine over its unix socket. */
  client(): DockerEngine {
    return new DockerEngine({ socketPath: this.socket });
  }

  /**
   * Stops dockerd as an operator's `systemctl restart docker` does (SIGTERM: it stops its containers, a
   * restart policy aside), waits `downMs`, and starts it again on the same socket, data root and bridge.
   * Resolves once the engine answers again; `down` is called right after the old dockerd exited.
   */
  async restart(downMs = 0, down: () => void = () => undefined): Promise<void> {
    await this.stopDaemon();
    down();
    if (downMs > 0) await delay(downMs);
    ({ dockerd: this.dockerd, exited: this.exited } = spawnDockerd(
      this.dir,
      this.socket,
      this.bridge,
      this.tls,
    ));
    await this.ready();
  }

  /** Stops dockerd (its containers with it), deletes its bridge and every file it had. */
  async stop(): Promise<void> {
    await this.stopDaemon();
    await run('ip', ['link', 'delete', this.bridge]).catch(() => undefined);
    await unmountUnder(this.dir);
    await rm(this.dir, { recursive: true, force: true });
  }

  private async stopDaemon(): Promise<void> {
    if (this.dockerd.exitCode !== null || this.dockerd.signalCode !== null) return;
    this.dockerd.kill('SIGTERM');
    const timer = setTimeout(() => this.dockerd.kill('SIGKILL'), 30_000);
    await this.exited;
    clearTimeout(timer);
  }

  private async ready(timeoutMs = 60_000): Promise<void> {
    const client = this.client();
    for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; await delay(200)) {
      if (this.dockerd.exitCode !== null || this.dockerd.pid === undefined)
        throw new Error(`the second dockerd did not start:\n${await this.logTail()}`);
      if (
        await client.ping().then(
          () => true,
          () => false,
        )
      )
        return;
    }
    throw new Error(`the second dockerd did not answer within ${timeoutMs} ms:\n${await this.logTail()}`);
  }

  private async logTail(): Promise<string> {
    const log = await readFile(join(this.dir, 'dockerd.log'), 'utf8').catch(() => '(no log)');
    return log.split('\n').slice(-15).join('\n');
  }
}

function spawnDockerd(
  dir: string,
  socket: string,
  bridge: string,
  tls: SecondEngine['tls'],
): { dockerd: ChildProcess; exited: Promise<void> } {
  const log = openSync(join(dir, 'dockerd.log'), 'a');
  const dockerd = spawn('dockerd', [...daemonArgs(dir, socket, bridge), ...tlsArgs(tls)], {
    stdio: ['ignore', log, log],
  });
  closeSync(log);
  const exited = new Promise<void>((resolve) => dockerd.once('exit', () => resolve()));
  dockerd.once('error', () => undefined); // no dockerd binary: `exited` fires and ready() says so
  return { dockerd, exited };
}

function daemonArgs(dir: string, socket: string, bridge: string): string[] {
  return [
    ...['--host', `unix://${socket}`, '--config-file', join(dir, 'daemon.json')],
    ...['--data-root', join(dir, 'data'), '--exec-root', join(dir, 'exec')],
    ...['--pidfile', join(dir, 'dockerd.pid'), '--storage-driver', 'vfs', '--shutdown-timeout', '2'],
    // Not --bridge=none: then dockerd deletes the interface docker0, the main engine's default network.
    ...['--bridge', bridge, '--iptables=false', '--ip6tables=false', '--ip-masq=false', '--ip-forward=false'],
  ];
}

function tlsArgs(tls: SecondEngine['tls']): string[] {
  if (!tls) return [];
  const { ca, serverCert, serverKey } = tls.certs;
  return [
    ...['--host', `tcp://127.0.0.1:${tls.port}`, '--tlsverify', '--tlscacert', ca],
    ...['--tlscert', serverCert, '--tlskey', serverKey],
  ];
}

/**
 * A bridge of the engine's own on a private /24 no other interface of this machine has (test files running
 * side by side may each start an engine), so its containers never touch another engine's.
 */
async function ownBridge(name: string): Promise<void> {
  const { stdout } = await run('ip', ['-4', '-o', 'address', 'show']);
  const taken = new Set([...stdout.matchAll(/ 10\.213\.(\d+)\./g)].map((m) => Number(m[1])));
  const free = Array.from({ length: 254 }, (_, i) => i + 1).filter((n) => !taken.has(n));
  const subnet = free[randomInt(0, free.length)];
  if (subnet === undefined) throw new Error('every 10.213.x.0/24 is taken by another bridge');
  await run('ip', ['link', 'add', 'name', name, 'type', 'bridge']);
  await run('ip', ['address', 'add', `10.213.${subnet}.1/24`, 'dev', name]);
  await run('ip', ['link', 'set', name, 'up']);
}

/** `docker save IMAGE | docker -H unix://SOCKET load`. */
async function copyImage(image: string, socket: string): Promise<void> {
  const save = spawn('docker', ['save', image], { stdio: ['ignore', 'pipe', 'inherit'] });
  const load = spawn('docker', ['-H', `unix://${socket}`, 'load', '-q'], {
    stdio: ['pipe', 'ignore', 'inherit'],
  });
  save.stdout.pipe(load.stdin);
  const codes = await Promise.all(
    [save, load].map((child) => new Promise<number | null>((resolve) => child.once('close', resolve))),
  );
  if (codes.some((code) => code !== 0)) throw new Error(`copying ${image} into the second engine failed`);
}

/** Whatever a killed dockerd left mounted under `dir` (e.g. network namespaces), innermost first. */
async function unmountUnder(dir: string): Promise<void> {
  const mounts = (await readFile('/proc/self/mounts', 'utf8'))
    .split('\n')
    .map((line) => line.split(' ')[1] ?? '')
    .filter((path) => path.startsWith(`${dir}/`))
    .sort((a, b) => b.length - a.length);
  for (const path of mounts) await run('umount', ['-l', path]).catch(() => undefined);
}
