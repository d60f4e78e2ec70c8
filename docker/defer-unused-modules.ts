import Module, { createRequire } from 'node:module';
import { dirname } from 'node:path';

/**
 * Requiring dockerode loads BuildKit's gRPC session client (@grpc/grpc-js, protobufjs) and, through
 * docker-modem, ssh2: about 115 of its 150 ms, paid by every node agent, worker and CLI start. The first is
 * used only to build an image with BuildKit (mesh never asks for it), the second only for an engine reached
 * over ssh://. Each goes into the module cache as a function that loads the real one when first called.
 */
const load = createRequire(__filename);

function deferFunctionModule(path: string): void {
  if (require.cache[path]) return;
  let real: ((...args: unknown[]) => unknown) | undefined;
  const stand = new Module(path, module);
  stand.filename = path;
  stand.loaded = true;
  stand.exports = function loadedOnFirstCall(this: unknown, ...args: unknown[]): unknown {
    if (!real) {
      delete require.cache[path];
      real = load(path) as (...args: unknown[]) => unknown;
    }
    return real.apply(this, args);
  };
  require.cache[path] = stand;
}

const dockerode = dirname(require.resolve('dockerode'));
deferFunctionModule(require.resolve('./session', { paths: [dockerode] }));
deferFunctionModule(require.resolve('docker-modem/lib/ssh', { paths: [dockerode] }));
