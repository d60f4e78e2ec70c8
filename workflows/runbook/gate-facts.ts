import type { Verdict } from '../verdict';

/** The evidence behind a gate's verdict, one line each, as the operator sees it and as it is hashed. */
export function gateFacts(note: string, verdict: Verdict): string[] {
  const d = verdict.details;
  return [
    note,
    ...d.unreadable.map((u) => `${u.input} from ${u.source} unreadable: ${u.error}`),
    ...d.held.map((h) => `held ${h.resource} (${h.module}): ${h.reason}`),
    ...d.heldBack.map((name) => `container ${name} kept from running as specified by a hold`),
    ...d.missing.map((id) => `sent, not applied, unexplained: ${id}`),
    ...d.notSent.map((id) => `applied, not sent: ${id}`),
    ...d.failedResources.map((f) => `failed ${f.resource} (${f.module}): ${f.error}`),
    ...d.containers.flatMap((c) => [
      ...(c.failures.length > 0 ? [`container ${c.name} ${c.failures.join(', ')}`] : []),
      ...c.staleSpec.map((why) => `container ${c.name} ${why}`),
      ...c.mounts.map(
        (m) =>
          `container ${c.name} mounts ${m.current ?? 'nothing'} at ${m.destination}, the spec wants ${m.desired ?? 'nothing'}${m.oldPath ? ' (the old path)' : ''}`,
      ),
    ]),
  ];
}
