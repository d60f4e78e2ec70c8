import { homedir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { OPERATOR_KINDS } from '../operator-kinds';
import { Port } from '../options';

export const DEMO_STATE_DIR = join(homedir(), '.local', 'state', 'mesh', 'demo');
/** Every kind with a demo story of its own (cli/runbook/operator-kinds), and the edge-flip fleet's. */
export const DEMO_KINDS: readonly string[] = [
  ...OPERATOR_KINDS.flatMap((kind) => (kind.demo ? [kind.descriptor.kind] : [])),
  'fleet',
];
export type DemoKind = string;
export const isDemoKind = (kind: string): kind is DemoKind => DEMO_KINDS.includes(kind);

/** `mesh runbook demo`'s argument and options. */
export const DemoSettings = z.object({
  kind: z
    .string()
    .refine(isDemoKind, { error: `the demos are ${DEMO_KINDS.join(', ')}` })
    .optional(),
  yes: z.boolean().default(false),
  stateDir: z.string().min(1).default(DEMO_STATE_DIR),
  node: z
    .string()
    .regex(/^[a-z0-9][a-z0-9-]*$/, 'lower-case letters, digits and dashes')
    .optional(),
  keepRunning: z.boolean().default(false),
  resume: z.boolean().default(false),
  reset: z.boolean().default(false),
  port: Port.optional(),
  uiPort: Port.optional(),
});
export type DemoSettings = z.infer<typeof DemoSettings>;
