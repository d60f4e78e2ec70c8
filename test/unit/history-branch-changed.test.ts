import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { isBranchChanged } from '../../cli/runbook/follow/branch-changed';

const status = { INVALID_ARGUMENT: 3, UNAVAILABLE: 14 } as const;
/** A gRPC error as @grpc/grpc-js hands it over: code, details, and the message it makes of them. */
const grpcError = (code: number, details: string) =>
  Object.assign(new Error(`${code} ${code === 3 ? 'INVALID_ARGUMENT' : 'UNAVAILABLE'}: ${details}`), {
    code,
    details,
  });

describe('a history read refused on a changed branch', () => {
  it("is the server's CurrentBranchChanged, in 1.32's words and in the older ones", () => {
    const now =
      "Current and request branch tokens, or current and request versioned transitions, don't match.";
    assert.equal(isBranchChanged(grpcError(status.INVALID_ARGUMENT, now)), true);
    assert.equal(
      isBranchChanged(grpcError(status.INVALID_ARGUMENT, "Current and request branch tokens don't match.")),
      true,
    );
  });

  it('is no other INVALID_ARGUMENT, the same words under another code, nor a refused decision', () => {
    assert.equal(isBranchChanged(grpcError(status.INVALID_ARGUMENT, 'Invalid NextPageToken.')), false);
    assert.equal(
      isBranchChanged(grpcError(status.UNAVAILABLE, "Current and request branch tokens don't match.")),
      false,
    );
    const refused = new WorkflowUpdateFailedError(
      'Workflow Update failed',
      new Error("Current and request branch tokens don't match."),
    );
    assert.equal(isBranchChanged(refused), false);
    assert.equal(isBranchChanged(undefined), false);
  });
});
