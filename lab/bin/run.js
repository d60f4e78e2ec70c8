// Runs one of the lab's controller programs from dist/ when the build is fresh, else from its sources.
const { join } = require('node:path');
const { compiledIsFresh } = require('../../bin/compiled');

module.exports = function run(program) {
  if (compiledIsFresh())
    return require(join(__dirname, '..', '..', 'dist', 'lab', 'mesh', `${program}-main.js`));
  require('tsx/cjs');
  return require(join(__dirname, '..', 'mesh', `${program}-main.ts`));
};
