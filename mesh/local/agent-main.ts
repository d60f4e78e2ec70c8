import pino from 'pino';
import { DockerEngine } from '../../docker/engine';
import { runNodeAgent } from './agent';

/** `agent-main.ts <stateDir> <node>`: one node agent run, started by a push (see spawn-agent.ts). */
const [stateDir, node] = process.argv.slice(2);
const logger = pino({ name: 'mesh-local-agent', base: { node } }, pino.destination(2));

if (!stateDir || !node) {
  logger.error('usage: agent-main.ts <stateDir> <node>');
  process.exit(2);
}

runNodeAgent(stateDir, node, { engine: new DockerEngine(), log: (message) => logger.info(message) }).then(
  () => process.exit(0),
  (error: unknown) => {
    logger.error({ err: error }, 'the node agent stopped');
    process.exit(1);
  },
);
