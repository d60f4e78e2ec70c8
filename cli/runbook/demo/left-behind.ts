import { readdir } from 'node:fs/promises';
import { resolve } from 'node:path';
import { DockerEngine, LABEL } from '../../../docker/engine';
import { StateLayout } from '../../../mesh/local';
import { shellWord } from '../../output';
import { DEMO_STATE_DIR } from './settings';

/** A container a demo's local mesh made, as `docker ps -a` names it. */
export interface DemoContainer {
  node: string;
  name: string;
  state: string;
}

/** Every container of every node in the demo's local mesh, running or not. */
export async function demoContainers(
  localState: string,
  engine = new DockerEngine(),
): Promise<DemoContainer[]> {
  const nodes = await readdir(new StateLayout(localState).nodesDir).catch(() => [] as string[]);
  const found: DemoContainer[] = [];
  for (const node of nodes.sort())
    for (const c of await engine.listByLabels({ [LABEL.node]: node }))
      found.push({ node, name: (c.Names[0] ?? c.Id).replace(/^\//, ''), state: c.State });
  return found;
}

/** The command that removes what the demo in `stateDir` left: its nodes' containers and its state. */
export function resetCommand(stateDir: string): string {
  return stateDir === resolve(DEMO_STATE_DIR)
    ? 'mesh runbook demo --reset'
    : `mesh runbook demo --reset --state-dir ${shellWord(stateDir)}`;
}

/**
 * What a demo says as it ends: the containers it leaves on the local Docker engine (the dev server and
 * worker have stopped by then), where its state stays, and the command that removes both.
 */
export function leftBehindLines(stateDir: string, containers: DemoContainer[]): string[] {
  const nodes = [...new Set(containers.map((c) => c.node))];
  const running = containers.filter((c) => c.state === 'running');
  const others = containers.filter((c) => c.state !== 'running');
  const names = (list: DemoContainer[]) => list.map((c) => c.name).join(', ');
  return [
    containers.length === 0
      ? 'left behind: no container'
      : `left behind on the local Docker engine: ${running.length} running container(s) of ${nodes.join(', ')}${running.length > 0 ? ` (${names(running)})` : ''}${others.length > 0 ? `, and ${others.length} stopped (${names(others)})` : ''}`,
    `the dev server and worker have stopped; the server database and the local mesh stay in ${stateDir}`,
    `remove them all with \`${resetCommand(stateDir)}\``,
  ];
}
