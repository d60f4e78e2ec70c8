import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { describe, it } from 'node:test';
import { portPicker } from '../support/ports';

describe("a test file's own ports (test/support/ports.ts)", () => {
  it('gives callers side by side distinct ports of the range, and passes over one that is taken', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(29_981, '127.0.0.1', resolve));
    try {
      const pick = portPicker('29980-29999');
      const ports = await Promise.all(Array.from({ length: 12 }, () => pick()));
      assert.equal(new Set(ports).size, 12, `picked ${ports.join(', ')}`);
      assert.ok(ports.every((p) => p >= 29_980 && p <= 29_999));
      assert.ok(!ports.includes(29_981), 'the taken port is passed over');
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });
});
