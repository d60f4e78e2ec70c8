import { KINDS, type KindOf, type RunbookKind } from '../../../workflows/kinds';
import { DATA_PATH_MOVE_OPERATOR } from './data-path-move';
import { EDGE_FLIP_OPERATOR } from './edge-flip';
import type { OperatorKind, OperatorRegistry } from './operator-kind';

/** Each kind's operator side, by name: a kind in workflows/kinds.ts without one fails `tsc`. */
const BY_KIND: { readonly [K in RunbookKind]: OperatorKind<KindOf<K>> } = {
  'edge-flip': EDGE_FLIP_OPERATOR,
  'data-path-move': DATA_PATH_MOVE_OPERATOR,
};

/** Every kind's operator side, in the registry's order: the `start`, `plan` and `demo` commands read it. */
export const OPERATOR_KINDS: OperatorRegistry = KINDS.map((descriptor) => BY_KIND[descriptor.kind]);

/** One kind's operator side, by name, in `registry`. */
export function operatorKind(kind: string, registry: OperatorRegistry = OPERATOR_KINDS) {
  return registry.find((operator) => operator.descriptor.kind === kind);
}

export type { OperatorKind, OperatorRegistry, Planner, ShowPlan } from './operator-kind';
