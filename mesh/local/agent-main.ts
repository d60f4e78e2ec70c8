import pino from 'pino';
import { DockerEngine } from '../../docker/engine';
import { runWatchingNodeAgent } from './agent-watch';

/**
 * `agent-main.ts <stateDir> <node> [lingerMs]`: a node agent started by a push (see spawn-agent.ts). It
 * applies what is in the inbox and stays `lingerMs` after its last apply for the next push.
 */
const [stateDir, node, linger] = process.argv.slice(2);
const logger = pino({ name: 'mesh-local-agent', base: { node, pid: process.pid } }, pino.destination(2));
const lingerMs = Number(linger ?? 0);

if (!stateDir || !node || !Number.isSafeInteger(lingerMs) || lingerMs < 0) {
  logger.error('usage: agent-main.ts <stateDir> <node> [lingerMs]');
  process.exit(2);
}

runWatchingNodeAgent(stateDir, node, {
  engine: new DockerEngine(),
  lingerMs,
  log: (message) => logger.info(message),
}).then(
  () => process.exit(0),
  (error: unknown) => {
    logger.error({ err: error }, 'the node agent stopped');
    process.exit(1);
  },
);
