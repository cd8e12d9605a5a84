/**
 * Card → hierarchy (tree.ts). Equations are placed by the groups the engine recorded
 * (`EqnData.group`, a forest through `GroupData.parent`: user calls, named scopes, nested jits,
 * as JAX's name stack has them); an equation holding sub-jaxprs (pjit, cond, scan, while,
 * custom rules) is itself a group around its sub-jaxprs (one branch group each when it has
 * several). Inside a sub-jaxpr, only the groups below the holding equation's own group are
 * drawn, so a nested jit is not wrapped twice. regroup.ts then compresses, chunks and groups
 * arguments; summary.ts writes the labels and sizes. Pure.
 */
import {
  isLiteral,
  type EqnData,
  type GroupData,
  type JaxprData,
  type TraceCard,
  type VarData,
} from '../protocol/types';
import { indexVars } from './cardIndex';
import { COMPREHENSION, pythonNames, readableFn } from './names';
import { regroup } from './regroup';
import { summarize } from './summary';
import {
  ROOT_ID,
  type DataEdge,
  type HKind,
  type HNode,
  type Hierarchy,
  type VarLabel,
} from './tree';

export { ROOT_ID } from './tree';

export function nodeIdOfEqn(eqnId: string): string {
  return `n:${eqnId}`;
}

/** The pass a transformation's name stack entry stands for. */
export function phaseOf(name: string): 'forward' | 'backward' | null {
  if (/^transpose\(/.test(name)) return 'backward';
  if (/^(jvp|linearize)\(/.test(name)) return 'forward';
  return null;
}

/** How a sub-jaxpr-holding equation is titled: `jit(f)`, `cond`, `scan`, `custom_jvp_call`. */
export function callName(e: EqnData): string {
  const name = e.params['name'];
  if (e.primitive === 'pjit' || e.primitive === 'jit') return `jit(${name ?? '…'})`;
  return name ? `${e.primitive} ${name}` : e.primitive;
}

class Builder {
  nodes = new Map<string, HNode>();
  edges: DataEdge[] = [];
  producer = new Map<string, string>();
  eqnNode = new Map<string, string>();
  eqnCount = 0;
  private uses: { varId: string; target: string }[] = [];
  private order = 0;
  private groups: Map<string, GroupData>;

  constructor(
    readonly card: TraceCard,
    readonly names: Map<string, string>,
  ) {
    this.groups = new Map((card.groups ?? []).map((g) => [g.id, g]));
  }

  add(id: string, kind: HKind, parent: string | null, extra: Partial<HNode> = {}): HNode {
    const n: HNode = {
      id,
      kind,
      name: '',
      jaxprName: '',
      detail: '',
      jaxprDetail: '',
      io: '',
      parent,
      children: [],
      eqnId: null,
      primitive: null,
      varIds: [],
      line: null,
      fn: null,
      eqnCount: 0,
      depth: 0,
      scopeKind: null,
      phase: null,
      path: '',
      order: this.order++,
      width: 0,
      height: 0,
      ...extra,
    };
    this.nodes.set(id, n);
    if (parent) this.nodes.get(parent)!.children.push(id);
    return n;
  }

  /**
   * The groups from `gid` up to (not including) `base`, outermost first. Comprehension frames
   * (`<listcomp>`, `<genexpr>`: Python < 3.12 runs a comprehension as its own function) are not
   * groups a reader made: their equations stay in the function that wrote the comprehension.
   */
  private chain(gid: string | null | undefined, base: string | null): GroupData[] {
    const out: GroupData[] = [];
    let g = gid ? this.groups.get(gid) : undefined;
    for (let n = 0; g && g.id !== base && n < 64; n++) {
      if (!COMPREHENSION.test(g.name)) out.unshift(g);
      g = g.parent ? this.groups.get(g.parent) : undefined;
    }
    return out;
  }

  /** The tree node an equation of container `key` goes into, creating scope nodes on the way. */
  private scopeFor(
    key: string,
    container: string,
    gid: string | null | undefined,
    base: string | null,
  ) {
    let parent = container;
    for (const g of this.chain(gid, base)) {
      const id = `s:${key}:${g.id}`;
      if (!this.nodes.has(id))
        this.add(id, 'scope', parent, {
          name: g.name,
          jaxprName: g.name,
          scopeKind: g.kind,
          phase: g.kind === 'transform' ? phaseOf(g.name) : null,
          line: g.call_site?.line ?? null,
        });
      parent = id;
    }
    return parent;
  }

  container(j: JaxprData, node: string, base: string | null, key: string) {
    for (const v of j.constvars) this.input(v, 'const', node, key);
    for (const v of j.invars) this.input(v, 'input', node, key);
    for (const e of j.eqns) this.eqn(e, this.scopeFor(key, node, e.group, base), e.group ?? base);
    j.outvars.forEach((a, k) => {
      const id = `o:${key}:${k}`;
      if (isLiteral(a)) {
        this.add(id, 'output', node, { name: a.value, jaxprName: a.value });
        return;
      }
      const py = this.names.get(a.id);
      this.add(id, 'output', node, { name: py ?? `out ${k}`, jaxprName: a.name, varIds: [a.id] });
      this.uses.push({ varId: a.id, target: id });
    });
  }

  private input(v: VarData, kind: 'input' | 'const', parent: string, key: string) {
    const id = `${kind === 'const' ? 'c' : 'i'}:${key}:${v.id}`;
    const name = this.names.get(v.id) ?? v.name;
    this.add(id, kind, parent, { varIds: [v.id], name, jaxprName: v.name });
    this.producer.set(v.id, id);
  }

  private eqn(e: EqnData, parent: string, group: string | null) {
    const id = nodeIdOfEqn(e.id);
    const isCall = e.subjaxprs.length > 0;
    this.eqnCount += 1;
    this.add(id, isCall ? 'call' : 'eqn', parent, {
      eqnId: e.id,
      primitive: e.primitive,
      varIds: e.outvars.map((v) => v.id),
      line: e.source?.line ?? null,
      fn: e.source?.function ? readableFn(e.source.function) : null,
      ...(isCall ? { name: callName(e), jaxprName: callName(e) } : {}),
    });
    this.eqnNode.set(e.id, id);
    for (const a of e.invars) if (!isLiteral(a)) this.uses.push({ varId: a.id, target: id });
    const several = e.subjaxprs.length > 1;
    e.subjaxprs.forEach((s, k) => {
      let holder = id;
      if (several) holder = this.add(`b:${e.id}:${k}`, 'branch', id, { name: s.param }).id;
      this.container(s.jaxpr, holder, group, `${e.id}.${k}`);
    });
    // After the sub-jaxprs, so their inner variables never shadow the equation's outputs.
    for (const v of e.outvars) this.producer.set(v.id, id);
  }

  finish(vars: Map<string, VarLabel>): Hierarchy {
    for (const u of this.uses) {
      const source = this.producer.get(u.varId);
      if (source && source !== u.target)
        this.edges.push({ source, target: u.target, varId: u.varId });
    }
    return {
      nodes: this.nodes,
      vars,
      root: ROOT_ID,
      edges: this.edges,
      eqnNode: this.eqnNode,
      producer: this.producer,
      eqnCount: this.eqnCount,
    };
  }
}

export interface HierarchyOptions {
  /** Most boxes on the card's top level (inputs and outputs included). */
  rootMax?: number;
  /** Most boxes inside any other group. */
  levelMax?: number;
}

/** Build the display hierarchy of a card. */
export function buildHierarchy(card: TraceCard, opts: HierarchyOptions = {}): Hierarchy {
  const names = pythonNames(card.jaxpr);
  const b = new Builder(card, names);
  b.add(ROOT_ID, 'root', null, { name: card.fun_name || card.title, jaxprName: card.title });
  b.container(card.jaxpr, ROOT_ID, null, 'r');
  const vars = new Map<string, VarLabel>();
  for (const v of indexVars(card.jaxpr).values())
    vars.set(v.id, { python: names.get(v.id) ?? null, jaxpr: v.name, short: v.aval.short });
  const h = b.finish(vars);
  regroup(h, names, { rootMax: opts.rootMax ?? 25, levelMax: opts.levelMax ?? 30 });
  summarize(h, card, names);
  return h;
}
