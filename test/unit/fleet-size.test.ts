import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { defaultPayloadConverter } from '@temporalio/common';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import {
  carriedBytes,
  FIXED_BYTES,
  FLEET_CARRIED_MOST_BYTES,
  refuseOversizedFleet,
} from '../../cli/runbook/start/fleet-size';
import { UsageError } from '../../cli/errors';
import type { EdgeFlipInput } from '../../workflows/contracts';

const RECORDED = join(__dirname, '..', 'histories', 'edge-flip-fleet-continued.first-run.json');

interface Carried {
  ended: { node: string }[];
  status: { steps: { name: string }[] };
}

/** The recorded fleet that continued as new: its start input and what it carried into its next run. */
function recorded(): { input: { runbooks: EdgeFlipInput[] }; carried: Carried } {
  const events = historyFromJSON(JSON.parse(readFileSync(RECORDED, 'utf8'))).events ?? [];
  const started = events[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
  const continued = events.find((e) => e.workflowExecutionContinuedAsNewEventAttributes)
    ?.workflowExecutionContinuedAsNewEventAttributes?.input?.payloads?.[0];
  assert.ok(started && continued);
  return {
    input: defaultPayloadConverter.fromPayload(started),
    carried: defaultPayloadConverter.fromPayload<{ carried: Carried }>(continued).carried,
  };
}

/** `count` nodes like the recorded fleet's first. */
function fleetOf(count: number): { runbooks: EdgeFlipInput[] } {
  const [first] = recorded().input.runbooks as [EdgeFlipInput];
  return { runbooks: Array.from({ length: count }, (_, i) => ({ ...first, node: `edge-${i}` })) };
}

describe('a fleet is refused when its carried state would pass the payload limit', () => {
  it("estimates each ended node's end and step as the recorded fleet really carried them", () => {
    const { input, carried } = recorded();
    const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value));
    const estimate = (carriedBytes(input) - bytes(input) - FIXED_BYTES) / input.runbooks.length;
    assert.ok(carried.ended.length >= 2);
    for (const end of carried.ended) {
      const real = bytes(end) + bytes(carried.status.steps.find((step) => step.name === end.node));
      assert.ok(
        Math.abs(estimate - real) <= real * 0.2,
        `${end.node}: estimated ${estimate}, carried ${real}`,
      );
    }
  });

  it('lets a fleet of 1,000 such nodes start, refuses 2,500 naming how many fit', () => {
    refuseOversizedFleet(fleetOf(1_000));
    assert.ok(carriedBytes(fleetOf(1_000)) < FLEET_CARRIED_MOST_BYTES);
    assert.throws(
      () => refuseOversizedFleet(fleetOf(2_500)),
      (error) => {
        assert.ok(error instanceof UsageError);
        assert.match(
          error.message,
          /^A fleet of 2500 nodes would carry about \d\.\d MB .* Temporal's 2 MB payload limit\.$/,
        );
        const most = Number(/at most (\d+) nodes/.exec(error.suggestion)?.[1]);
        assert.ok(most > 1_000 && most < 2_500, error.suggestion);
        refuseOversizedFleet(fleetOf(most));
        return true;
      },
    );
  });
});
