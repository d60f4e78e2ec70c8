import { DockerEngine } from '../../docker/engine';
import { HostAgent } from './host-agent';
import { serveJson } from './http-json';
import { listenAddress, option } from './main-options';

/**
 * `mesh-host --node <n> --listen <ip:port> --state <dir> --docker <socket> --host-root <dir>`: the lab's node
 * agent, run inside the host's network namespace, until SIGTERM.
 */
const node = option('--node');
const [host, port] = listenAddress(option('--listen'));
const agent = new HostAgent({
  node,
  stateDir: option('--state'),
  hostRoot: option('--host-root'),
  engine: new DockerEngine({ socketPath: option('--docker') }),
  log: (message) => process.stderr.write(`${new Date().toISOString()} mesh-host ${node}: ${message}\n`),
});
agent
  .start()
  .then(() => serveJson(agent.routes(), host, port))
  .then(
    () => process.stderr.write(`mesh-host ${node}: listening on ${host}:${port}\n`),
    (error: unknown) => {
      process.stderr.write(`mesh-host ${node}: ${String(error)}\n`);
      process.exit(1);
    },
  );
