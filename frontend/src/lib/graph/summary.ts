/**
 * Labels, summaries and box sizes of a hierarchy, once its shape is final: each equation shows
 * the Python name of what it makes (`h`) over its op and shapes (`tanh · f32[4,8]`), or its
 * primitive when the value has no Python name; each group its name over what it is and how
 * much it holds (`ƒ call · 12 ops`) and, collapsed, the shapes entering and leaving it. Both
 * naming modes are written, and boxes are sized for the wider, so switching names never moves
 * a box. Pure.
 */
import { isLiteral, type EqnData, type TraceCard } from '../protocol/types';
import { indexEqns, indexVars } from './cardIndex';
import { isGroup, type HNode, type Hierarchy } from './tree';

export const FONT = { name: 13, detail: 11, title: 13 } as const;
/** Monospace advance in em (DejaVu Sans Mono, Menlo, Consolas are all ≈ 0.6). */
const ADVANCE = 0.61;
export const LEAF_H = 40;
export const GROUP_H = 56;
const MAX_W = 250;
const MAX_CHARS = 36;

export function textWidth(s: string, px: number): number {
  return Math.ceil(s.length * px * ADVANCE);
}

function clip(s: string, n = MAX_CHARS): string {
  return s.length > n ? `${s.slice(0, n - 1)}…` : s;
}

const SCOPE_LABEL: Record<string, string> = {
  call: 'call',
  named_scope: 'scope',
  jit: 'jit',
  transform: 'transform',
};

function ops(n: number): string {
  return `${n} op${n === 1 ? '' : 's'}`;
}

/** `f32[4,8] ×2, f32[8]` — distinct shapes with counts, at most three. */
export function shapeList(shorts: string[]): string {
  const counts = new Map<string, number>();
  for (const s of shorts) counts.set(s, (counts.get(s) ?? 0) + 1);
  const parts = [...counts].map(([s, n]) => (n > 1 ? `${s}×${n}` : s));
  return parts.length > 3 ? `${parts.slice(0, 2).join(' ')} +${parts.length - 2}` : parts.join(' ');
}

function eqnLabels(n: HNode, e: EqnData, names: Map<string, string>) {
  const py = e.outvars.map((v) => names.get(v.id)).find((x) => x);
  const shapes = e.outvars.map((v) => v.aval.short).join(' ');
  const lits = e.invars.filter(isLiteral).map((l) => l.value);
  const lit = lits.length ? ` · ${lits.join(', ')}` : '';
  n.name = clip(py ?? e.primitive);
  n.jaxprName = e.primitive;
  n.detail = clip(`${py ? `${e.primitive} · ` : ''}${shapes}${lit}`);
  n.jaxprDetail = clip(`${e.outvars.map((v) => `${v.name}:${v.aval.short}`).join(' ')}${lit}`);
}

function groupDetail(n: HNode): string {
  const inner = n.kind === 'call' ? n.eqnCount - 1 : n.eqnCount;
  switch (n.kind) {
    case 'args':
      return `${n.children.length} ${n.name === 'outputs' || n.children.some((c) => c.startsWith('o:')) ? 'results' : 'arrays'}`;
    case 'scope':
      return n.scopeKind === 'call'
        ? ops(inner)
        : `${SCOPE_LABEL[n.scopeKind ?? 'call']} · ${ops(inner)}`;
    case 'call':
      return `${n.primitive} · ${ops(inner)}`;
    case 'chunk':
      // A series (consecutive calls of one function) carries the calls' scope kind.
      return n.scopeKind ? `${n.children.length} calls · ${ops(inner)}` : ops(inner);
    default:
      return ops(inner);
  }
}

/** Shapes entering and leaving every group, from the data edges crossing its border. */
function groupIo(h: Hierarchy, shortOf: (varId: string) => string) {
  const ins = new Map<string, Set<string>>();
  const outs = new Map<string, Set<string>>();
  const chains = new Map<string, string[]>();
  const chain = (id: string) => {
    let out = chains.get(id);
    if (!out) {
      out = [id];
      for (let p = h.nodes.get(id)!.parent; p; p = h.nodes.get(p)!.parent) out.push(p);
      chains.set(id, out);
    }
    return out;
  };
  const mark = (m: Map<string, Set<string>>, id: string, v: string) => {
    if (!m.has(id)) m.set(id, new Set());
    m.get(id)!.add(v);
  };
  for (const e of h.edges) {
    const src = chain(e.source);
    const tgt = chain(e.target);
    // Both chains end at the root: walk them from the top while they agree.
    let i = src.length - 1;
    let j = tgt.length - 1;
    while (i >= 0 && j >= 0 && src[i] === tgt[j]) (i--, j--);
    for (let k = 0; k <= i; k++) mark(outs, src[k], e.varId);
    for (let k = 0; k <= j; k++) mark(ins, tgt[k], e.varId);
  }
  for (const n of h.nodes.values()) {
    if (!isGroup(n) || n.kind === 'args') continue;
    const i = shapeList([...(ins.get(n.id) ?? [])].map(shortOf));
    const o = shapeList([...(outs.get(n.id) ?? [])].map(shortOf));
    n.io = i || o ? clip(`${i || '·'} → ${o || '·'}`, 40) : '';
  }
}

function leafLabels(
  n: HNode,
  card: TraceCard,
  eqns: Map<string, EqnData>,
  names: Map<string, string>,
  shortOf: (v: string) => string,
) {
  if (n.kind === 'eqn' && n.eqnId) return eqnLabels(n, eqns.get(n.eqnId)!, names);
  const v = n.varIds[0];
  const short = v ? shortOf(v) : '';
  n.name = clip(n.name);
  if (n.kind === 'output') {
    n.detail = short;
    n.jaxprDetail = `out ${short}`;
  } else {
    n.detail = n.kind === 'const' ? `const ${short}` : short;
    n.jaxprDetail = n.detail;
  }
  void card;
}

function size(n: HNode) {
  const nameW = Math.max(textWidth(n.name, FONT.name), textWidth(n.jaxprName, FONT.name));
  const detailW = Math.max(textWidth(n.detail, FONT.detail), textWidth(n.jaxprDetail, FONT.detail));
  if (isGroup(n)) {
    const w = Math.max(nameW + 30, detailW, textWidth(n.io, FONT.detail)) + 20;
    n.width = Math.min(MAX_W + 40, Math.max(96, w));
    n.height = n.io ? GROUP_H : LEAF_H + 2;
  } else {
    n.width = Math.min(MAX_W, Math.max(56, Math.max(nameW, detailW) + 20));
    n.height = LEAF_H;
  }
}

/** Depth, path and equation counts, top-down then bottom-up. */
function structure(h: Hierarchy) {
  const visit = (id: string, depth: number, path: string): number => {
    const n = h.nodes.get(id)!;
    n.depth = depth;
    n.path = path;
    const step = n.phase ? `${n.name} (${n.phase})` : n.name;
    const inner = isGroup(n) && id !== h.root ? (path ? `${path} / ${step}` : step) : path;
    let count = n.kind === 'eqn' || n.kind === 'call' ? 1 : 0;
    for (const c of n.children) count += visit(c, depth + 1, inner);
    n.eqnCount = count;
    return count;
  };
  visit(h.root, 0, '');
}

const PHASE = { forward: 'forward', backward: 'backward' } as const;

export function summarize(h: Hierarchy, card: TraceCard, names: Map<string, string>) {
  const eqns = indexEqns(card.jaxpr);
  const vars = indexVars(card.jaxpr);
  const shortOf = (v: string) => vars.get(v)?.aval.short ?? '?';
  structure(h);
  for (const n of h.nodes.values()) {
    if (isGroup(n)) {
      n.name = clip(n.name || n.jaxprName || n.kind);
      n.jaxprName = clip(n.jaxprName || n.name);
      n.detail = n.id === h.root ? card.title : groupDetail(n);
      if (n.phase) n.detail = `${PHASE[n.phase]} · ${n.detail}`;
      n.jaxprDetail = n.detail;
    } else leafLabels(n, card, eqns, names, shortOf);
  }
  groupIo(h, shortOf);
  for (const n of h.nodes.values()) size(n);
}
