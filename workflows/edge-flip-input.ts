import { z } from 'zod';
import { Name } from '../mesh/schemas';
import {
  FleetApproval,
  HeaderName,
  HostName,
  HttpAddress,
  PredictedVerdicts,
  SignedStart,
  Timings,
} from './input-parts';

export const EdgeFlipInput = z
  .strictObject({
    node: Name,
    /** The successor edge module. */
    module: Name,
    /** The edge module serving the public names now. */
    predecessor: Name,
    publicNames: z.array(HostName).min(1),
    /** Where the node serves its public names (the predecessor now, the successor after the flip). */
    publicAddress: HttpAddress,
    /** Where the successor answers before the flip, to verify it before the predecessor stops. */
    successorAddress: HttpAddress,
    expectStatus: z.number().int().min(100).max(599).default(200),
    /** Text only the successor's answers contain, so a probe cannot mistake the predecessor for it. */
    successorMarker: z.string().min(1, 'must not be empty').optional(),
    /** Text only the predecessor's answers contain, so a rollback knows the predecessor answers again. */
    predecessorMarker: z.string().min(1, 'must not be empty').optional(),
    /**
     * The answer header whose value names the node that answered (e.g. X-Served-By): every probe then
     * fails an answer from any other node. Absent: runbooks started before it, and probes that tell the
     * node by its markers.
     */
    nodeHeader: HeaderName.optional(),
    startedBy: z.string().min(1),
    timings: Timings.default(Timings.parse({})),
    /** Each gate's verdict as `mesh runbook plan` predicted it at the start; a gate that differs says so. */
    predicted: PredictedVerdicts.optional(),
    /** A fleet's approval this node may stop its predecessor on, when its gates were ok at first look. */
    fleetApproval: FleetApproval.optional(),
    signedStart: SignedStart.optional(),
  })
  .refine((i) => i.successorAddress !== i.publicAddress, {
    path: ['successorAddress'],
    message: "must differ from publicAddress, or the predecessor would pass the successor's probe",
  });
export type EdgeFlipInput = z.infer<typeof EdgeFlipInput>;
export type EdgeFlipInputArg = z.input<typeof EdgeFlipInput>;
