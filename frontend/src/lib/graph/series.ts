/**
 * Series: three or more consecutive calls of one function at a level fold into one box
 * (TensorBoard folds repeated nodes the same way): `block ×4`, whose members read `block #1` …
 * `block #4`. A call often comes with a few equations of its own between calls — the indexing
 * that prepares its arguments (`head(x, p['wq'][h])` slices `wq` before each call) — so calls
 * separated by the same sequence of primitives still form a series, each member being the call
 * with those equations (`head #3` = 8 slicing ops + `head`). Mutates the hierarchy. Pure
 * otherwise.
 */
import { newGroup, replaceChildren, type HNode, type Hierarchy } from './tree';

/** Runs of at least this many calls fold into a series. */
export const SERIES_MIN = 3;

const isCall = (n: HNode) => n.kind === 'scope';
const isLeaf = (n: HNode) => n.kind === 'eqn';
const signature = (ns: HNode[]) => ns.map((n) => n.primitive).join(',');

interface Run {
  /** Indices (in the level's children) of the calls. */
  calls: number[];
  /** Equations between two calls, the same primitives each time (0 when the calls touch). */
  gap: number;
  /** Does each gap belong to the call after it (arguments) or before it (results)? */
  prep: boolean;
  /** Are the first call's arguments (the last call's results) there too? */
  ends: boolean;
}

/** The run of same-named calls starting at `i`, each pair separated by the same leaves. */
function runAt(kids: HNode[], i: number, from: number): Run | null {
  const calls = [i];
  let sig: string | null = null;
  for (let j = i + 1; ;) {
    let k = j;
    while (k < kids.length && isLeaf(kids[k])) k++;
    if (k >= kids.length || !isCall(kids[k]) || kids[k].name !== kids[i].name) break;
    const s = signature(kids.slice(j, k));
    if (sig !== null && s !== sig) break;
    sig = s;
    calls.push(k);
    j = k + 1;
  }
  if (calls.length < SERIES_MIN) return null;
  const gap = calls[1] - calls[0] - 1;
  const last = calls[calls.length - 1];
  const fits = (a: number) => {
    const ns = kids.slice(a, a + gap);
    return gap > 0 && a >= from && ns.length === gap && ns.every(isLeaf) && signature(ns) === sig;
  };
  const before = fits(i - gap);
  const after = fits(last + 1);
  // Arguments, unless only the equations after the last call repeat the pattern (results).
  const prep = before || !after;
  return { calls, gap, prep, ends: prep ? before : after };
}

/** The children (indices) making up each member of a run. */
function members(run: Run): number[][] {
  const { calls, gap, prep, ends } = run;
  return calls.map((c, k) => {
    const end = prep ? k === 0 : k === calls.length - 1;
    if (gap === 0 || (end && !ends)) return [c];
    const lo = prep ? c - gap : c;
    return Array.from({ length: gap + 1 }, (_, x) => lo + x);
  });
}

/** Fold every series among the children of `g`. */
export function foldSeries(h: Hierarchy, g: HNode) {
  const kids = g.children.map((c) => h.nodes.get(c)!);
  const replace = new Map<string, string | null>();
  let from = 0;
  for (let i = 0; i < kids.length;) {
    const run = isCall(kids[i]) ? runAt(kids, i, from) : null;
    if (!run) {
      i++;
      continue;
    }
    const parts = members(run);
    const base = kids[i].name;
    const ids = parts.map((idx, k) => {
      const call = kids[run.calls[k]];
      if (idx.length === 1) {
        call.name = `${base} #${k + 1}`;
        return call.id;
      }
      const name = `${base} #${k + 1}`;
      const own = idx.map((x) => kids[x].id);
      return newGroup(h, `k:${g.id}:series:${i}:${k}`, 'chunk', g, own, { name, jaxprName: name })
        .id;
    });
    const id = `k:${g.id}:series:${i}`;
    const name = `${base} ×${ids.length}`;
    newGroup(h, id, 'chunk', g, ids, { name, jaxprName: name, scopeKind: kids[i].scopeKind });
    const covered = parts.flat().sort((a, b) => a - b);
    covered.forEach((x, k) => replace.set(kids[x].id, k === 0 ? id : null));
    from = covered[covered.length - 1] + 1;
    i = from;
  }
  replaceChildren(g, replace);
}
