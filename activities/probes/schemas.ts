import { z } from 'zod';
import { printable } from '../../base/printable';
import { HeaderName } from '../../workflows/contracts';

/** How much of a node header's value a result keeps: a node name is at most 63 characters. */
const ANSWERED_BY_MAX = 100;

/** What a public-name probe asks: GET / at `address` once per name, with the name as the Host header. */
export const ProbeInput = z
  .object({
    address: z
      .string()
      .regex(
        /^https?:\/\/[^/\s]+$/,
        'an address like http://127.0.0.1:8080 (scheme, host and port, no path)',
      ),
    names: z.array(z.string().min(1)).min(1),
    expectStatus: z.number().int().min(100).max(599),
    /** Text the answer's body must contain, e.g. to tell the successor's answers from the predecessor's. */
    marker: z.string().min(1).optional(),
    /** Text the answer's body must not contain, e.g. to be sure the predecessor answers, not its successor. */
    absentMarker: z.string().min(1).optional(),
    /** The node that must answer: with `nodeHeader`, the answer's header of that name must carry its name. */
    node: z.string().min(1).optional(),
    /** The answer header that names the node that answered (e.g. X-Served-By); another name, or none, fails. */
    nodeHeader: HeaderName.optional(),
    timeoutMs: z.number().int().positive().max(120_000),
  })
  .refine((input) => input.nodeHeader === undefined || input.node !== undefined, {
    path: ['node'],
    message: 'names no node, so its node header proves nothing',
  });
export type ProbeInput = z.infer<typeof ProbeInput>;

/** How one name answered. A name that did not answer at all has `error` and no `status`. */
export const ProbeResult = z.object({
  name: z.string().min(1),
  ok: z.boolean(),
  status: z.number().int().optional(),
  error: z.string().min(1).optional(),
  /** Only when the connection was refused: nothing listened at the address. */
  refused: z.literal(true).optional(),
  /** Only when a marker was asked for and an answer arrived. */
  markerFound: z.boolean().optional(),
  /** Only when an absent marker was named and an answer arrived: the answer carried it (someone else answered). */
  absentMarkerFound: z.boolean().optional(),
  /**
   * Only when a node header was named and an answer arrived: the node the answer says it came from (the
   * header's value, made safe to show; empty when the answer had no such header).
   */
  answeredBy: z
    .string()
    .transform((text) => printable(text, ANSWERED_BY_MAX))
    .optional(),
});
export type ProbeResult = z.infer<typeof ProbeResult>;
