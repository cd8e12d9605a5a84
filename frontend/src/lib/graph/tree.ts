/**
 * The card's hierarchy as the graph pane shows it: a tree whose leaves are equations, inputs
 * and outputs and whose inner nodes are groups (the card's function, the user's calls and
 * named scopes, equations holding sub-jaxprs, their branches, synthetic chunks of long flat
 * runs, and pytree groups of arguments). Types and tree helpers only; hierarchy.ts builds it.
 * Pure.
 */
import type { GroupData } from '../protocol/types';

export type HKind =
  'root' | 'scope' | 'call' | 'branch' | 'chunk' | 'args' | 'eqn' | 'input' | 'const' | 'output';

const GROUPS: ReadonlySet<HKind> = new Set(['root', 'scope', 'call', 'branch', 'chunk', 'args']);

export function isGroupKind(k: HKind): boolean {
  return GROUPS.has(k);
}

export interface HNode {
  id: string;
  kind: HKind;
  /** Main label with Python names, and with jaxpr names. */
  name: string;
  jaxprName: string;
  /** Second line, per naming mode (op and shapes for leaves; kind and size for groups). */
  detail: string;
  jaxprDetail: string;
  /** Third line of a collapsed group: the shapes going in → coming out. */
  io: string;
  parent: string | null;
  children: string[];
  /** Equation id for equation leaves and for groups that are one equation (pjit, cond, …). */
  eqnId: string | null;
  primitive: string | null;
  /** Variables this node makes known (an input's var, an equation's outvars). */
  varIds: string[];
  line: number | null;
  /** The user function the node's (first) equation was traced in. */
  fn: string | null;
  /** Equations at or under this node (a leaf equation counts 1). */
  eqnCount: number;
  depth: number;
  scopeKind: GroupData['kind'] | null;
  /** Pass of a transformation group: `jvp(loss)` is the forward pass, `transpose(…)` backward. */
  phase: 'forward' | 'backward' | null;
  /** Names of the enclosing groups, outermost first ("step / loss / mlp"). */
  path: string;
  /** Program order of the node's first equation (or of the input/output). */
  order: number;
  width: number;
  height: number;
}

/** One use of a variable: from the node that produces it to a node that consumes it. */
export interface DataEdge {
  source: string;
  target: string;
  varId: string;
}

/** How a variable reads: Python name (or null), jaxpr name, shape. */
export interface VarLabel {
  python: string | null;
  jaxpr: string;
  short: string;
}

export interface Hierarchy {
  nodes: Map<string, HNode>;
  vars: Map<string, VarLabel>;
  root: string;
  edges: DataEdge[];
  /** eqn id → the tree node standing for it. */
  eqnNode: Map<string, string>;
  /** var id → the tree node producing it. */
  producer: Map<string, string>;
  /** Total equations, nested ones included. */
  eqnCount: number;
}

export const ROOT_ID = 'root';

export function isGroup(n: HNode): boolean {
  return isGroupKind(n.kind);
}

/** Ancestors of `id`, nearest first (the node itself excluded). */
export function ancestors(h: Hierarchy, id: string): string[] {
  const out: string[] = [];
  let p = h.nodes.get(id)?.parent ?? null;
  while (p) {
    out.push(p);
    p = h.nodes.get(p)?.parent ?? null;
  }
  return out;
}

/** Every node under `id` (excluded), depth first in child order. */
export function descendants(h: Hierarchy, id: string): string[] {
  const out: string[] = [];
  const stack = [...(h.nodes.get(id)?.children ?? [])].reverse();
  while (stack.length) {
    const c = stack.pop()!;
    out.push(c);
    const kids = h.nodes.get(c)?.children ?? [];
    for (let i = kids.length - 1; i >= 0; i--) stack.push(kids[i]);
  }
  return out;
}

/** Equation ids at or under a node. */
export function eqnsUnder(h: Hierarchy, id: string): string[] {
  const out: string[] = [];
  for (const n of [id, ...descendants(h, id)]) {
    const eqn = h.nodes.get(n)?.eqnId;
    if (eqn) out.push(eqn);
  }
  return out;
}

/** Every group id (root excluded). */
export function groupIds(h: Hierarchy): string[] {
  return [...h.nodes.values()].filter((n) => isGroup(n) && n.id !== h.root).map((n) => n.id);
}

export function setParent(h: Hierarchy, child: string, parent: string) {
  h.nodes.get(child)!.parent = parent;
}

/** A new group of kind `kind` under `parent` holding `kids` (which it takes from their parents). */
export function newGroup(
  h: Hierarchy,
  id: string,
  kind: HKind,
  parent: HNode,
  kids: string[],
  extra: Partial<HNode>,
) {
  const first = h.nodes.get(kids[0])!;
  const n: HNode = { ...first, id, kind, parent: parent.id, children: kids, eqnId: null };
  Object.assign(
    n,
    { primitive: null, varIds: [], scopeKind: null, name: '', jaxprName: '' },
    extra,
  );
  h.nodes.set(id, n);
  for (const k of kids) setParent(h, k, id);
  return n;
}

/**
 * Apply a level's regrouping: each child in `replace` becomes its group's id (the first member)
 * or disappears (null: a later member of a group already placed).
 */
export function replaceChildren(g: HNode, replace: Map<string, string | null>) {
  g.children = g.children
    .map((c) => (replace.has(c) ? replace.get(c)! : c))
    .filter((c): c is string => c !== null);
}
