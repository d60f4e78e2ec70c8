import { z } from 'zod';
import { KINDS, type KindRegistry } from '../workflows/kinds';
import { decisionPoints, fourEyesOf } from '../workflows/plans';
import type { KindDescriptor } from '../workflows/runbook/kind';

/** A gate the plans know: a misspelt one would silently leave the real gate without its rule. */
export function knownGate(registry: KindRegistry = KINDS) {
  const gates = decisionPoints(registry);
  return z.string().refine((gate) => gates.includes(gate), {
    error: (issue) => `"${String(issue.input)}" is no gate of any runbook; the gates are ${gates.join(', ')}`,
  });
}

/**
 * `policy.fourEyes`: the gates where the runbook's starter may not decide. By kind
 * (`{ edge-flip: [approve-stop-predecessor], data-path-move: [] }`), a kind not named keeps its plan's
 * four-eyes gates; or one list of gates, which must name a gate of every kind that has four-eyes gates
 * (`[]`: none anywhere): a list written before a kind existed would otherwise drop that kind's four eyes
 * without a word. The result is the policy's list of gate names.
 */
export function fourEyesFile(registry: KindRegistry = KINDS) {
  const List = z.array(knownGate(registry));
  const kinds = registry.map((d) => d.kind);
  const ByKind = z.record(z.string(), z.array(z.string()));
  return z.unknown().transform((value, ctx): string[] => {
    if (Array.isArray(value)) {
      const list = List.safeParse(value);
      if (!list.success) return relay(list.error, ctx);
      const missed = list.data.length === 0 ? [] : registry.filter(unnamedIn(list.data, registry));
      for (const kind of missed) ctx.addIssue({ code: 'custom', message: listMisses(kind) });
      return list.data;
    }
    const byKind = ByKind.safeParse(value);
    if (!byKind.success) return relay(byKind.error, ctx);
    for (const kind of Object.keys(byKind.data).filter((key) => !kinds.includes(key)))
      ctx.addIssue({
        code: 'custom',
        path: [kind],
        message: `there is no runbook kind "${kind}"; the kinds are ${kinds.join(', ')}`,
      });
    for (const [kind, gates] of Object.entries(byKind.data))
      for (const [index, gate] of gates.entries())
        if (!gatesOf(kind, registry).includes(gate))
          ctx.addIssue({
            code: 'custom',
            path: [kind, index],
            message: `"${gate}" is no gate of ${kind}; its gates are ${gatesOf(kind, registry).join(', ')}`,
          });
    const named: Record<string, string[] | undefined> = byKind.data;
    return [...new Set(registry.flatMap((d) => named[d.kind] ?? fourEyesOf(d.plan)))];
  });
}

function gatesOf(kind: string, registry: KindRegistry): string[] {
  return registry.find((d) => d.kind === kind)?.plan.steps.map((step) => step.name) ?? [];
}

/** A kind with four-eyes gates of which the list names none of its own (gates no other kind has). */
function unnamedIn(list: string[], registry: KindRegistry) {
  return (kind: KindDescriptor) => {
    if (fourEyesOf(kind.plan).length === 0) return false;
    const others = new Set(registry.filter((d) => d !== kind).flatMap((d) => gatesOf(d.kind, registry)));
    const own = gatesOf(kind.kind, registry).filter((gate) => !others.has(gate));
    return !own.some((gate) => list.includes(gate));
  };
}

function listMisses(kind: KindDescriptor): string {
  const defaults = fourEyesOf(kind.plan);
  return `the list names no gate of ${kind.kind}, whose ${defaults.join(', ')} ${defaults.length === 1 ? 'is' : 'are'} four-eyes by default; name the kinds instead, as in { ${kind.kind}: [${defaults.join(', ')}] } ([] lets its starter decide there), with the other kinds as the list has them`;
}

function relay(error: z.ZodError, ctx: z.RefinementCtx): never {
  for (const issue of error.issues)
    ctx.addIssue({ code: 'custom', path: issue.path as PropertyKey[], message: issue.message });
  return z.NEVER;
}
