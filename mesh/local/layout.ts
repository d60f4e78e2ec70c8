import { join } from 'node:path';

/** Where the local mesh keeps its files: the controller's, then one directory per node agent. */
export class StateLayout {
  constructor(readonly stateDir: string) {}

  get controllerFile(): string {
    return join(this.stateDir, 'controller.json');
  }

  get controllerLock(): string {
    return join(this.stateDir, 'controller.lock');
  }

  /** One directory per node the local mesh has. */
  get nodesDir(): string {
    return join(this.stateDir, 'nodes');
  }

  nodeDir(node: string): string {
    return join(this.nodesDir, node);
  }

  nodeStateFile(node: string): string {
    return join(this.nodeDir(node), 'state.json');
  }

  /** Held by the node agent while it applies, and by anything else that changes the node's containers. */
  nodeLock(node: string): string {
    return join(this.nodeDir(node), 'agent.lock');
  }

  /** Names the node agent that is running and watching the inbox, while it does (see agent-presence.ts). */
  agentPresence(node: string): string {
    return join(this.nodeDir(node), 'agent.pid');
  }

  inboxDir(node: string): string {
    return join(this.nodeDir(node), 'inbox');
  }

  inboxFile(node: string, pushId: string): string {
    return join(this.inboxDir(node), `${pushId}.json`);
  }

  journal(node: string): string {
    return join(this.nodeDir(node), 'journal.log');
  }

  agentLog(node: string): string {
    return join(this.nodeDir(node), 'agent.log');
  }

  defaultHostRoot(node: string): string {
    return join(this.nodeDir(node), 'root');
  }
}
