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
