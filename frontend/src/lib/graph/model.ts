/**
 * Converts a card's structured jaxpr into a dataflow graph the page can lay out and draw.
 * Pure: no DOM, no ELK runtime, so it is unit-tested directly. Nodes are the jaxpr's inputs,
 * equations and outputs; an edge is one variable flowing from its producer to a consumer.
 * Equations that carry sub-jaxprs (jit, cond, while, scan, custom rules) become groups that can
 * be collapsed; ids are the card's own var/eqn ids so every pane can link by them.
 */
import { isLiteral, type EqnData, type JaxprData, type VarData } from '../protocol/types';

export type NodeKind = 'input' | 'const' | 'eqn' | 'output' | 'group';

export interface GraphNode {
  id: string;
  kind: NodeKind;
  label: string;
  /** Short secondary text: outvar names with avals, or the literal operands. */
  detail: string;
  eqnId: string | null;
  /** Variables this node makes known: an input's var, an equation's outvars. */
  varIds: string[];
  /** Enclosing group node id (a sub-jaxpr box) or null at top level. */
  parent: string | null;
  /** Nesting depth of the jaxpr the node belongs to (0 = the card's jaxpr). */
  depth: number;
  line: number | null;
  /** For equations with sub-jaxprs: number of equations inside, and whether it is collapsed. */
  innerEqns: number;
  collapsed: boolean;
  width: number;
  height: number;
}

export interface GraphEdge {
  id: string;
  source: string;
  target: string;
  varId: string;
  label: string;
}

export interface GraphModel {
  nodes: GraphNode[];
  edges: GraphEdge[];
  /** Top-level equation count: equals `card.jaxpr.eqns.length`. */
  eqnCount: number;
  /** Eqn ids hidden inside collapsed groups → the visible group node standing in for them. */
  hidden: Record<string, string>;
}

export const NODE_HEIGHT = 34;
const CHAR_W = 7.2;

export function nodeId(eqnId: string): string {
  return `n:${eqnId}`;
}

/** Total number of equations in a jaxpr including every nested sub-jaxpr. */
export function countEqns(j: JaxprData): number {
  let n = 0;
  for (const e of j.eqns) {
    n += 1;
    for (const s of e.subjaxprs) n += countEqns(s.jaxpr);
  }
  return n;
}

/** Default collapse policy: expand groups while the total stays readable, innermost-last. */
export function defaultCollapsed(j: JaxprData, budget = 160): Set<string> {
  const collapsed = new Set<string>();
  let shown = j.eqns.length;
  const visit = (jx: JaxprData) => {
    for (const e of jx.eqns) {
      if (e.subjaxprs.length === 0) continue;
      const inner = e.subjaxprs.reduce((a, s) => a + s.jaxpr.eqns.length, 0);
      if (shown + inner > budget) collapsed.add(e.id);
      else shown += inner;
    }
    for (const e of jx.eqns) {
      if (!collapsed.has(e.id)) for (const s of e.subjaxprs) visit(s.jaxpr);
    }
  };
  visit(j);
  return collapsed;
}

function textWidth(s: string): number {
  return Math.ceil(s.length * CHAR_W);
}

function varLabel(v: VarData): string {
  return `${v.name}:${v.aval.short}`;
}

function eqnDetail(e: EqnData): string {
  const outs = e.outvars.map(varLabel).join(' ');
  const lits = e.invars.filter(isLiteral).map((l) => l.value);
  return lits.length ? `${outs} · ${lits.join(', ')}` : outs;
}

class Builder {
  nodes: GraphNode[] = [];
  edges: GraphEdge[] = [];
  /** var id → node id that produces it (the node visible at the current collapse level). */
  producer = new Map<string, string>();
  hidden: Record<string, string> = {};
  private edgeSeq = 0;

  constructor(private collapsed: Set<string>) {}

  addNode(n: Omit<GraphNode, 'width' | 'height'> & { width?: number }) {
    const width = n.width ?? Math.max(64, textWidth(n.label) + 24, textWidth(n.detail) + 16);
    this.nodes.push({ ...n, width: Math.min(width, 280), height: NODE_HEIGHT });
  }

  edge(varId: string, target: string, label: string) {
    const source = this.producer.get(varId);
    if (!source || source === target) return;
    this.edges.push({ id: `x${this.edgeSeq++}`, source, target, varId, label });
  }

  jaxpr(j: JaxprData, parent: string | null, depth: number) {
    for (const [kind, vars] of [
      ['const', j.constvars],
      ['input', j.invars],
    ] as const) {
      for (const v of vars) {
        const id = `${kind === 'const' ? 'c' : 'i'}:${v.id}`;
        this.addNode({
          id,
          kind,
          label: v.name,
          detail: v.aval.short,
          eqnId: null,
          varIds: [v.id],
          parent,
          depth,
          line: null,
          innerEqns: 0,
          collapsed: false,
        });
        this.producer.set(v.id, id);
      }
    }
    for (const e of j.eqns) this.eqn(e, parent, depth);
    j.outvars.forEach((a, k) => {
      const id = `o:${j.id}:${k}`;
      this.addNode({
        id,
        kind: 'output',
        label: isLiteral(a) ? a.value : `out ${a.name}`,
        detail: a.aval.short,
        eqnId: null,
        varIds: [],
        parent,
        depth,
        line: null,
        innerEqns: 0,
        collapsed: false,
      });
      if (!isLiteral(a)) this.edge(a.id, id, a.aval.short);
    });
  }

  eqn(e: EqnData, parent: string | null, depth: number) {
    const id = nodeId(e.id);
    const innerEqns = e.subjaxprs.reduce((a, s) => a + countEqns(s.jaxpr), 0);
    const isGroup = e.subjaxprs.length > 0;
    const collapsed = isGroup && this.collapsed.has(e.id);
    this.addNode({
      id,
      kind: isGroup && !collapsed ? 'group' : 'eqn',
      label: e.primitive,
      detail: eqnDetail(e),
      eqnId: e.id,
      varIds: e.outvars.map((v) => v.id),
      parent,
      depth,
      line: e.source?.line ?? null,
      innerEqns,
      collapsed,
    });
    for (const a of e.invars) if (!isLiteral(a)) this.edge(a.id, id, a.aval.short);
    if (collapsed) {
      for (const s of e.subjaxprs)
        for (const inner of indexEqns(s.jaxpr).keys()) this.hidden[inner] = id;
    }
    if (isGroup && !collapsed) {
      e.subjaxprs.forEach((s, k) => {
        const gid = `g:${e.id}:${k}`;
        this.addNode({
          id: gid,
          kind: 'group',
          label: s.param,
          detail: '',
          eqnId: null,
          varIds: [],
          parent: id,
          depth: depth + 1,
          line: null,
          innerEqns: countEqns(s.jaxpr),
          collapsed: false,
        });
        this.jaxpr(s.jaxpr, gid, depth + 1);
      });
    }
    // Set after the sub-jaxprs so their inner names never shadow the group's own outputs.
    for (const v of e.outvars) this.producer.set(v.id, id);
  }
}

/** Build the graph of `j`, with the equations in `collapsed` drawn as single nodes. */
export function buildGraph(j: JaxprData, collapsed: Set<string> = new Set()): GraphModel {
  const b = new Builder(collapsed);
  b.jaxpr(j, null, 0);
  return { nodes: b.nodes, edges: b.edges, eqnCount: j.eqns.length, hidden: b.hidden };
}

/** Map from eqn id to its EqnData over the whole nested jaxpr. */
export function indexEqns(j: JaxprData, into = new Map<string, EqnData>()): Map<string, EqnData> {
  for (const e of j.eqns) {
    into.set(e.id, e);
    for (const s of e.subjaxprs) indexEqns(s.jaxpr, into);
  }
  return into;
}

/** Map from var id to its VarData over the whole nested jaxpr. */
export function indexVars(j: JaxprData, into = new Map<string, VarData>()): Map<string, VarData> {
  for (const v of [...j.constvars, ...j.invars]) into.set(v.id, v);
  for (const e of j.eqns) {
    for (const v of e.outvars) into.set(v.id, v);
    for (const s of e.subjaxprs) indexVars(s.jaxpr, into);
  }
  return into;
}
