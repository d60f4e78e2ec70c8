import { homedir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { Port } from '../options';

export const DEMO_STATE_DIR = join(homedir(), '.local', 'state', 'mesh', 'demo');
export const DEMO_KINDS = ['edge-flip', 'data-path-move', 'fleet'] as const;
export type DemoKind = (typeof DEMO_KINDS)[number];
export const isDemoKind = (kind: string): kind is DemoKind =>
  (DEMO_KINDS as readonly string[]).includes(kind);

/** `mesh runbook demo`'s argument and options. */
export const DemoSettings = z.object({
  kind: z.enum(DEMO_KINDS).optional(),
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
