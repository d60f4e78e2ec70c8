import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, readlink, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Lab } from './lab';

/** A ui-server of the test's own: the lab's build, pointed at the lab's frontend, with a config the test picks. */
export interface LabUiServer {
  url: string;
  stop(): Promise<void>;
}

/** A TCP port free right now on `host` (the OS picks it). */
function freePortOn(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, host, () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

/** The binary the lab's running ui-server was started from (scripts/lab/up.sh's build in the lab cache). */
async function labUiServerBinary(lab: Lab): Promise<string> {
  const pid = (await readFile(lab.ui.pidFile, 'utf8')).trim();
  return readlink(`/proc/${pid}/exe`);
}

/**
 * Starts another ui-server of the lab's build on `host` (a free port), with the lab's namespace and write
 * actions, and its CSRF cookie `Secure` unless `cookieInsecure`; resolves once it answers /healthz.
 */
export async function startLabUiServer(
  lab: Lab,
  { host, cookieInsecure }: { host: string; cookieInsecure: boolean },
): Promise<LabUiServer> {
  const binary = await labUiServerBinary(lab);
  const port = await freePortOn(host);
  const url = `http://${host}:${port}`;
  const root = await mkdtemp(join(tmpdir(), 'lab-ui-server-'));
  await mkdir(join(root, 'config'));
  await writeFile(
    join(root, 'config', 'test.yaml'),
    [
      `temporalGrpcAddress: "${lab.temporal.address}"`,
      `host: ${host}`,
      `port: ${port}`,
      'enableUi: true',
      `defaultNamespace: ${lab.temporal.namespace}`,
      'disableWriteActions: false',
      'workflowUpdateDisabled: false',
      'cors:',
      `  cookieInsecure: ${cookieInsecure}`,
      '  allowOrigins:',
      `    - "${url}"`,
      '',
    ].join('\n'),
  );
  const child = spawn(binary, ['--root', root, '--config', 'config', '--env', 'test', 'start'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr = `${stderr}${chunk.toString()}`.slice(-2_000)));
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code) => reject(new Error(`the ui-server exited with ${code}: ${stderr}`))),
  );
  const stop = async () => {
    if (child.exitCode === null) {
      const gone = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await gone;
    }
    await rm(root, { recursive: true, force: true });
  };
  try {
    await Promise.race([exited, answers(`${url}/healthz`, 120_000)]);
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, stop };
}

async function answers(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ok = await fetch(url).then(
      (response) => response.ok,
      () => false,
    );
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`${url} did not answer within ${timeoutMs}ms`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
