import type { PredictedHold } from '../../workflows/plan-report';

/** Locks and an earlier run's failed rollback are Temporal's to know; the plan does not ask it. */
export const TEMPORAL_NOT_ASKED =
  'whether another runbook holds the node or a module, or the node awaits `mesh runbook clear`: Temporal decides at start';

/** `12 resources of route-proxy (…reasons)`, per module. */
export function whoHolds(holds: PredictedHold[]): string {
  const modules = [...new Set(holds.map((h) => h.module))];
  return modules
    .map((m) => {
      const of = holds.filter((h) => h.module === m);
      return `${of.length} resource(s) of ${m} (${of[0]?.reason ?? ''})`;
    })
    .join(', ');
}
