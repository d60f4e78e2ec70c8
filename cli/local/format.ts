import type { ApplyReport, NodeState } from '../../mesh/schemas';
import { colour } from '../output';
import { plural } from './context';

export function listOrNone(items: string[]): string {
  return items.length === 0 ? '(none)' : items.join(', ');
}

/** One line per applied/held/failed count, then each held resource with the node's own reason. */
export function formatReport(report: ApplyReport): string[] {
  const lines = [
    `push ${report.pushId} applied at ${report.finishedAt}: applied ${plural(report.applied, 'resource')}, ` +
      `held ${report.held.length}, failed ${report.failed.length}`,
  ];
  for (const held of report.held) lines.push(`  ${colour.yellow('held')} ${held.resource}: ${held.reason}`);
  for (const failed of report.failed)
    lines.push(`  ${colour.red('failed')} ${failed.resource}: ${failed.error}`);
  return lines;
}

export function formatNodeState(state: NodeState): string[] {
  return [
    `node ${state.node}: ${state.adopted ? 'adopted' : 'not adopted'}, host paths under ${state.hostRoot}`,
    `  assigned: ${listOrNone(state.assigned)}`,
    `  taken:    ${listOrNone(state.taken)}`,
    ...(state.lastApply ? [`  last apply: ${formatReport(state.lastApply)[0]}`] : ['  last apply: none yet']),
    ...(state.holds.length > 0
      ? [`  holds (the node's own reasons):`, ...state.holds.map((h) => `    ${h.resource}: ${h.reason}`)]
      : ['  holds: none']),
    ...(state.lastApply?.failed.length
      ? ['  failed at the last apply:', ...state.lastApply.failed.map((f) => `    ${f.resource}: ${f.error}`)]
      : []),
  ];
}
