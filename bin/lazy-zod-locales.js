// zod's entry requires all 64 of its locales (about 40 ms of a 300 ms `mesh runbook status`), though it
// sets English from its own file and mesh never picks another. When zod asks for its locales index, this
// hands it a stand-in with the same exports that loads the real index on the first read of any of them.
const Module = require('node:module');
const { dirname, join } = require('node:path');

const LOCALES_INDEX = '../locales/index.cjs';
const ZOD_V4_MODULE = /[\\/]node_modules[\\/]zod[\\/]v4[\\/][a-z]+[\\/][^\\/]+\.cjs$/;

function standIn(load) {
  return new Proxy(
    {},
    {
      get: (_, key) => (key === '__esModule' ? true : load()[key]),
      has: (_, key) => key in load(),
      ownKeys: () => Reflect.ownKeys(load()),
      getOwnPropertyDescriptor: (_, key) => {
        const descriptor = Reflect.getOwnPropertyDescriptor(load(), key);
        return descriptor && { ...descriptor, configurable: true };
      },
    },
  );
}

/** From here on, zod's locales index is loaded when something reads it, not when zod loads. */
function deferZodLocales() {
  const load = Module._load;
  const standIns = new Map();
  Module._load = function loadDeferringZodLocales(request, parent, isMain) {
    if (request !== LOCALES_INDEX || !ZOD_V4_MODULE.test(parent?.filename ?? '')) {
      return load.call(this, request, parent, isMain);
    }
    const path = join(dirname(parent.filename), request);
    if (!standIns.has(path)) {
      let real;
      standIns.set(
        path,
        standIn(() => (real ??= load.call(this, request, parent, isMain))),
      );
    }
    return standIns.get(path);
  };
}

module.exports = { deferZodLocales };
