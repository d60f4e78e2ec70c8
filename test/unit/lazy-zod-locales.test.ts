import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';

const run = promisify(execFile);
const DEFER = join(__dirname, '..', '..', 'bin', 'lazy-zod-locales.js');

/** Runs `script` in a fresh node after the CLI's deferral, so zod is loaded as `mesh` loads it. */
async function withDeferredLocales(script: string): Promise<unknown> {
  const prelude = `require(${JSON.stringify(DEFER)}).deferZodLocales(); const { z } = require('zod');`;
  const { stdout } = await run(process.execPath, ['-e', `${prelude}\n${script}`]);
  return JSON.parse(stdout);
}

const loadedLocales = `Object.keys(require.cache).filter((file) => /zod.v4.locales/.test(file)).length`;

describe("zod's locales, deferred by the CLI's entry", () => {
  it('loads only English with zod, and English messages are unchanged', async () => {
    const seen = await withDeferredLocales(
      `console.log(JSON.stringify({ loaded: ${loadedLocales}, message: z.string().safeParse(1).error.issues[0].message }));`,
    );
    assert.deepEqual(seen, { loaded: 1, message: 'Invalid input: expected string, received number' });
  });

  it('still gives every locale, from the real index, when one is asked for', async () => {
    const seen = await withDeferredLocales(
      `const names = Object.keys(z.locales); z.config(z.locales.de());
       console.log(JSON.stringify({ names: names.length, same: z.core.locales.fr === z.locales.fr,
         message: z.string().safeParse(1).error.issues[0].message, loaded: ${loadedLocales} }));`,
    );
    assert.deepEqual(seen, {
      names: 63,
      same: true,
      message: 'Ungültige Eingabe: erwartet string, erhalten Zahl',
      loaded: 64,
    });
  });
});
