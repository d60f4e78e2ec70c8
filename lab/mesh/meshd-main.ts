import { Controller } from './controller';
import { serveJson } from './http-json';
import { listenAddress, option } from './main-options';

/** `meshd --listen <ip:port> --state <file>`: the lab's mesh controller, until SIGTERM. */
const [host, port] = listenAddress(option('--listen'));
const controller = new Controller(option('--state'));
serveJson(controller.routes(), host, port).then(
  () => process.stderr.write(`meshd: listening on ${host}:${port}\n`),
  (error: unknown) => {
    process.stderr.write(`meshd: ${String(error)}\n`);
    process.exit(1);
  },
);
