import { MeshRefusedError } from '../errors';
import { ModuleSpec, type ModuleSpecInput } from '../schemas';
import { firstIssue } from '../../base/zod-issue';

/** A module spec as the mesh accepts it (defaults filled in), or a refusal that names the field. */
export function checkModuleSpec(input: ModuleSpecInput): ModuleSpec {
  const parsed = ModuleSpec.safeParse(input);
  if (!parsed.success) {
    const { field, problem } = firstIssue(parsed.error);
    throw new MeshRefusedError(
      `The module spec is invalid: ${field ? `field ${field}` : 'the spec'}: ${problem}.`,
    );
  }
  const names = parsed.data.containers.map((c) => c.name);
  const duplicate = names.find((name, i) => names.indexOf(name) !== i);
  if (duplicate)
    throw new MeshRefusedError(`Module ${parsed.data.module} names container ${duplicate} twice.`);
  return parsed.data;
}
