/**
 * Which drawn boxes the linked focus lights: the box of every focused equation (itself, or
 * the collapsed group hiding it), and a focused group's own box. Pure.
 */
import type { Focus } from '../state/selection.svelte';
import type { Hierarchy } from './tree';

export function activeBoxes(
  h: Hierarchy,
  rep: Map<string, string>,
  eqns: Set<string>,
  focus: Focus | null,
): Set<string> {
  const out = new Set<string>();
  if (focus?.kind === 'group') {
    const b = rep.get(focus.id);
    if (b) out.add(b);
    return out;
  }
  for (const e of eqns) {
    const node = h.eqnNode.get(e);
    const b = node ? rep.get(node) : undefined;
    if (b) out.add(b);
  }
  return out;
}
