import { z } from 'zod';
import { unprintable } from './printable';

/** The names and host paths that mesh, Docker and the runbooks all check the same way. Bundle-safe (zod only). */

export const NAME_PATTERN = /^[a-z0-9][a-z0-9-]*$/;
/** As long as a host name's label may be: a node's name becomes part of its runbook's workflow id and queue. */
export const NAME_MAX = 63;
export const Name = z
  .string()
  .max(NAME_MAX, `at most ${NAME_MAX} characters`)
  .regex(NAME_PATTERN, 'lower-case letters, digits and dashes, not starting with a dash');

export const AbsolutePath = z
  .string()
  .refine((p) => p.startsWith('/'), 'must be an absolute path')
  .refine((p) => !p.split('/').includes('..'), 'must not contain ..')
  .refine((p) => !unprintable(p), 'must not contain control characters or line breaks');
