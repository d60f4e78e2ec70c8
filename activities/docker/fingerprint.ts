import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { DockerEngine } from '../../docker/engine';
import { HostFingerprint } from '../../workflows/contracts';

/**
 * Which host a node worker really works on: its Docker engine's ID (unique per engine and data root) and the
 * machine id of the host whose disk it writes (`<host root>/etc/machine-id`; none where the host root has
 * no such file, as with the local mesh's nodes, which share one machine).
 */
export async function hostFingerprint(engine: DockerEngine, hostRoot: string): Promise<HostFingerprint> {
  const { ID } = (await engine.docker.info()) as { ID?: string };
  const machineId = await readFile(join(hostRoot, 'etc', 'machine-id'), 'utf8').then(
    (text) => text.trim() || null,
    () => null,
  );
  return HostFingerprint.parse({ engineId: ID ?? '', machineId });
}

/**
 * A node worker's fingerprint, read once (the first read that succeeds) and given to every activity after.
 * Read per activity, its machine id went through the thread pool that serves all of the worker's file
 * system calls, where a copy hung in a frozen or network mount holds every thread: the host check of an
 * unrelated undo step (start the module again on A) then waited behind the hung copy. The host a worker
 * runs on does not change while it runs; a read that failed (an engine not answering yet) is tried again.
 */
export function hostFingerprintOnce(engine: DockerEngine, hostRoot: string): () => Promise<HostFingerprint> {
  let read: Promise<HostFingerprint> | undefined;
  return () =>
    (read ??= hostFingerprint(engine, hostRoot).catch((error: unknown) => {
      read = undefined;
      throw error;
    }));
}
