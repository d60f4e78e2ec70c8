import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { SUBSET_FILE, temporalApiSubset } from '../../scripts/temporal-api-subset';

describe("the cut of Temporal's API the CLI reads with", () => {
  it('is what the installed SDK cuts now (regenerate: npx tsx scripts/temporal-api-subset.ts)', () => {
    const now = JSON.parse(JSON.stringify(temporalApiSubset())) as unknown;
    assert.deepEqual(JSON.parse(readFileSync(SUBSET_FILE, 'utf8')), now);
  });
});
