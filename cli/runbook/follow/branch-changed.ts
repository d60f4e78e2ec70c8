const GRPC_INVALID_ARGUMENT = 3;
/** The server's sentence (1.32: "…branch tokens, or current and request versioned transitions, don't match."). */
const BRANCH_CHANGED = /^Current and request branch tokens\b.*\bdon't match/;

/**
 * Whether a history read was refused because the run's state, as the server's long poll saw it, does not
 * contain the point its page token names (CurrentBranchChanged, INVALID_ARGUMENT). Raised only by history
 * reads (GetWorkflowExecutionHistory and its kin: service/history/api/get_workflow_util.go), never by an
 * Update. The 1,000-node bench met it when a change to the fleet's state that adds no event
 * (RemoveSignalMutableState) reached the long poll with a transition count one behind the token's
 * (6123 < 6124). The read changes nothing, so reading again without the token is safe; the server does the
 * same itself for a close-event-only read (temporalio/temporal#7334). Any other INVALID_ARGUMENT is not this.
 */
export function isBranchChanged(error: unknown): boolean {
  const { code, details } = (error ?? {}) as { code?: unknown; details?: unknown };
  return code === GRPC_INVALID_ARGUMENT && typeof details === 'string' && BRANCH_CHANGED.test(details);
}

/** How many refusals in a row a history reader takes before it gives up. */
export const BRANCH_CHANGED_ATTEMPTS = 5;
