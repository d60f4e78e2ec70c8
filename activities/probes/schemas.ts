import { z } from 'zod';

/** What a public-name probe asks: GET / at `address` once per name, with the name as the Host header. */
export const ProbeInput = z.object({
  address: z
    .string()
    .regex(/^https?:\/\/[^/\s]+$/, 'an address like http://127.0.0.1:8080 (scheme, host and port, no path)'),
  names: z.array(z.string().min(1)).min(1),
  expectStatus: z.number().int().min(100).max(599),
  /** Text the answer's body must contain, e.g. to tell the successor's answers from the predecessor's. */
  marker: z.string().min(1).optional(),
  /** Text the answer's body must not contain, e.g. to be sure the predecessor answers, not its successor. */
  absentMarker: z.string().min(1).optional(),
  timeoutMs: z.number().int().positive().max(120_000),
});
export type ProbeInput = z.infer<typeof ProbeInput>;

/** How one name answered. A name that did not answer at all has `error` and no `status`. */
export const ProbeResult = z.object({
  name: z.string().min(1),
  ok: z.boolean(),
  status: z.number().int().optional(),
  error: z.string().min(1).optional(),
  /** Only when a marker was asked for and an answer arrived. */
  markerFound: z.boolean().optional(),
  /** Only when an absent marker was named and an answer arrived: the answer carried it (someone else answered). */
  absentMarkerFound: z.boolean().optional(),
});
export type ProbeResult = z.infer<typeof ProbeResult>;
