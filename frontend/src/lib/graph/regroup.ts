/**
 * Reshapes a freshly built hierarchy so that every level is readable:
 *  1. a scope holding a single node gives way to it (a scope around one group joins names,
 *     `attention / jit(f)`);
 *  2. a function's flattened arguments and results are grouped by pytree
 *     (`params['W1']`, `params['b1']` → one `params` box);
 *  3. three or more consecutive calls of one function become one series (TensorBoard's folding
 *     of repeated nodes): `block ×4`, `head ×14` (series.ts);
 *  4. a level with more boxes than its budget is cut into consecutive chunks of program order,
 *     preferably where the user function or the source line changes ("mlp · lines 17–19"),
 *     recursively, so no level ever exceeds its budget — also for cards without any groups.
 * Mutates the hierarchy in place. Pure otherwise.
 */
import { pytreePrefix } from './names';
import { foldSeries } from './series';
import { isGroup, newGroup, replaceChildren, type HKind, type HNode, type Hierarchy } from './tree';

export interface RegroupOptions {
  rootMax: number;
  levelMax: number;
}

/** Arguments (or results) at a level are grouped by pytree once there are more than this. */
const ARGS_LOOSE = 3;
const IO_KINDS: ReadonlySet<HKind> = new Set(['input', 'const', 'output', 'args']);

/** Post-order walk (children before parents) over every group. */
function groupsPostOrder(h: Hierarchy): HNode[] {
  const out: HNode[] = [];
  const visit = (id: string) => {
    const n = h.nodes.get(id)!;
    for (const c of n.children) visit(c);
    if (isGroup(n)) out.push(n);
  };
  visit(h.root);
  return out;
}

function compress(h: Hierarchy) {
  for (const g of groupsPostOrder(h)) {
    if (g.kind !== 'scope' || g.children.length !== 1) continue;
    const child = h.nodes.get(g.children[0])!;
    const parent = h.nodes.get(g.parent!)!;
    parent.children[parent.children.indexOf(g.id)] = child.id;
    child.parent = parent.id;
    if (isGroup(child)) {
      // A pass around one call reads as that call in that pass: `loss`, backward.
      child.phase ??= g.phase;
      if (!g.phase) child.name = `${g.name} / ${child.name}`;
      child.jaxprName = `${g.jaxprName} / ${child.jaxprName}`;
      child.scopeKind ??= g.scopeKind;
    }
    h.nodes.delete(g.id);
  }
}

/**
 * Group the leaves of some kinds at a level by pytree path, `depth` steps deep; a group that
 * is still crowded is grouped again one step deeper (`params` → `params['layers']` →
 * `params['layers'][0]`). Keys with a single member stay loose.
 */
function groupByPath(
  h: Hierarchy,
  g: HNode,
  kinds: HKind[],
  key: (n: HNode, depth: number) => string,
  depth: number,
) {
  const leaves = g.children.filter((c) => kinds.includes(h.nodes.get(c)!.kind));
  if (leaves.length <= ARGS_LOOSE || depth > 8) return;
  const byKey = new Map<string, string[]>();
  for (const c of leaves) {
    const k = key(h.nodes.get(c)!, depth);
    byKey.set(k, [...(byKey.get(k) ?? []), c]);
  }
  if (byKey.size === 1 && g.kind === 'args') return groupByPath(h, g, kinds, key, depth + 1);
  const replace = new Map<string, string | null>();
  for (const [k, kids] of byKey) {
    if (kids.length < 2) continue;
    const prefix = kinds.includes('output') ? 'r' : 'a';
    const group = newGroup(h, `${prefix}:${g.id}:${k}`, 'args', g, kids, {
      name: k,
      jaxprName: k,
      line: null,
    });
    groupByPath(h, group, kinds, key, depth + 1);
    kids.forEach((c, i) => replace.set(c, i === 0 ? group.id : null));
  }
  replaceChildren(g, replace);
}

function groupArgs(h: Hierarchy, names: Map<string, string>) {
  const py = (n: HNode) => names.get(n.varIds[0] ?? '') ?? null;
  const key = (fallback: (n: HNode) => string) => (n: HNode, depth: number) => {
    const name = py(n);
    return name ? pytreePrefix(name, depth) : fallback(n);
  };
  const inKey = key((n) => (n.kind === 'const' ? 'constants' : 'inputs'));
  const outKey = key(() => 'outputs');
  for (const g of groupsPostOrder(h)) {
    if (g.kind === 'args') continue;
    groupByPath(h, g, ['input', 'const'], inKey, 0);
    groupByPath(h, g, ['output'], outKey, 0);
  }
}

/** A chunk holds at least this many boxes (fewer, larger chunks read better than many tiny). */
const MIN_CHUNK = 8;

/**
 * Runs cutting `n` items into at most `max` chunks of at least ceil(n/max) (and MIN_CHUNK)
 * items and less than twice that, each cut placed where `score` is highest.
 */
export function chunkRuns(
  score: (i: number) => number,
  n: number,
  max: number,
): [number, number][] {
  const s = Math.max(Math.ceil(n / max), Math.min(MIN_CHUNK, Math.ceil(n / 2)));
  const runs: [number, number][] = [];
  let start = 0;
  while (start < n) {
    if (n - start < 2 * s) {
      runs.push([start, n]);
      break;
    }
    let best = start + s;
    for (let end = start + s; end < start + 2 * s && end < n; end++)
      if (score(end) > score(best)) best = end;
    runs.push([start, best]);
    start = best;
  }
  return runs;
}

function chunkName(h: Hierarchy, kids: string[]): { name: string; fn: string | null } {
  const ns = kids.map((k) => h.nodes.get(k)!);
  const lines = ns.map((n) => n.line).filter((l): l is number => l !== null);
  const fns = new Set(ns.map((n) => n.fn).filter((f) => f));
  const fn = fns.size === 1 ? [...fns][0] : null;
  const lo = Math.min(...lines);
  const hi = Math.max(...lines);
  const where = lines.length
    ? lo === hi
      ? `line ${lo}`
      : `lines ${lo}–${hi}`
    : `${kids.length} steps`;
  return { name: fn && fn !== '<module>' ? `${fn} · ${where}` : where, fn };
}

function chunkLevel(h: Hierarchy, g: HNode, budget: number) {
  const body = g.children.filter((c) => !IO_KINDS.has(h.nodes.get(c)!.kind));
  const room = Math.max(4, budget - (g.children.length - body.length));
  if (body.length <= room) return;
  const item = (i: number) => h.nodes.get(body[i])!;
  const score = (i: number) =>
    (item(i).fn !== item(i - 1).fn ? 2 : 0) + (item(i).line !== item(i - 1).line ? 1 : 0);
  const replace = new Map<string, string | null>();
  chunkRuns(score, body.length, room).forEach(([a, b], k) => {
    if (b - a < 2) return;
    const kids = body.slice(a, b);
    const id = `k:${g.id}:${k}`;
    const label = chunkName(h, kids);
    newGroup(h, id, 'chunk', g, kids, { ...label, jaxprName: label.name });
    kids.forEach((c, i) => replace.set(c, i === 0 ? id : null));
  });
  replaceChildren(g, replace);
}

function chunkAll(h: Hierarchy, opts: RegroupOptions) {
  const stack = [h.root];
  while (stack.length) {
    const g = h.nodes.get(stack.pop()!)!;
    chunkLevel(h, g, g.id === h.root ? opts.rootMax : opts.levelMax);
    for (const c of g.children) if (isGroup(h.nodes.get(c)!)) stack.push(c);
  }
}

export function regroup(h: Hierarchy, names: Map<string, string>, opts: RegroupOptions) {
  compress(h);
  for (const g of groupsPostOrder(h)) foldSeries(h, g);
  groupArgs(h, names);
  chunkAll(h, opts);
}
