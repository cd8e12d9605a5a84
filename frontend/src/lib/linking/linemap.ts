/**
 * Line numbers across an edit: which line of the code a run was made from is which line of the
 * editor now. Results of an older program (trace cards, tracebacks) link into the editor through
 * this map while they are stale; a line that was changed or deleted maps to null, so its link is
 * disabled rather than pointing at other code.
 *
 * The diff is patience-style and runs in O(n log n): common prefix and suffix first, then lines
 * unique to both sides are anchored in order (longest increasing run), recursing between anchors.
 * Pure, so it is unit-tested.
 */

export interface LineMap {
  /** Editor line (1-based) for a line of the old text, or null when it changed or is gone. */
  toNew(line: number): number | null;
  /** Old-text line for an editor line, or null when that line is new or changed. */
  toOld(line: number): number | null;
  /** True when both texts are the same. */
  identical: boolean;
}

const MAX_DEPTH = 8;

function splitLines(text: string): string[] {
  return text.split('\n');
}

/** Longest strictly increasing subsequence of `b` values (pairs sorted by `a`). */
function increasingRun(pairs: [number, number][]): [number, number][] {
  const tails: number[] = [];
  const prev: number[] = new Array(pairs.length).fill(-1);
  for (let i = 0; i < pairs.length; i++) {
    let lo = 0;
    let hi = tails.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (pairs[tails[mid]][1] < pairs[i][1]) lo = mid + 1;
      else hi = mid;
    }
    if (lo > 0) prev[i] = tails[lo - 1];
    tails[lo] = i;
  }
  const out: [number, number][] = [];
  for (let i = tails.length ? tails[tails.length - 1] : -1; i >= 0; i = prev[i]) out.push(pairs[i]);
  return out.reverse();
}

function uniqueAnchors(a: string[], b: string[], a0: number, a1: number, b0: number, b1: number) {
  const count = new Map<string, [number, number, number]>(); // line -> [countA, countB, indexA]
  for (let i = a0; i < a1; i++) {
    const c = count.get(a[i]) ?? [0, 0, i];
    c[0] += 1;
    count.set(a[i], c);
  }
  const pairs: [number, number][] = [];
  const seenB = new Map<string, number>();
  for (let j = b0; j < b1; j++) seenB.set(b[j], (seenB.get(b[j]) ?? 0) + 1);
  for (let j = b0; j < b1; j++) {
    const c = count.get(b[j]);
    if (c && c[0] === 1 && seenB.get(b[j]) === 1) pairs.push([c[2], j]);
  }
  pairs.sort((x, y) => x[0] - y[0]);
  return increasingRun(pairs);
}

function match(
  a: string[],
  b: string[],
  ranges: [number, number, number, number],
  out: Int32Array,
  depth: number,
) {
  let [a0, a1, b0, b1] = ranges;
  while (a0 < a1 && b0 < b1 && a[a0] === b[b0]) out[a0++] = b0++;
  while (a0 < a1 && b0 < b1 && a[a1 - 1] === b[b1 - 1]) out[--a1] = --b1;
  if (a0 >= a1 || b0 >= b1 || depth >= MAX_DEPTH) return;
  const anchors = uniqueAnchors(a, b, a0, a1, b0, b1);
  let pa = a0;
  let pb = b0;
  for (const [i, j] of anchors) {
    out[i] = j;
    match(a, b, [pa, i, pb, j], out, depth + 1);
    pa = i + 1;
    pb = j + 1;
  }
  if (anchors.length) match(a, b, [pa, a1, pb, b1], out, depth + 1);
}

/** Map the lines of `oldText` onto the lines of `newText`. */
export function lineMap(oldText: string, newText: string): LineMap {
  if (oldText === newText) {
    return { toNew: (l) => l, toOld: (l) => l, identical: true };
  }
  const a = splitLines(oldText);
  const b = splitLines(newText);
  const fwd = new Int32Array(a.length).fill(-1);
  match(a, b, [0, a.length, 0, b.length], fwd, 0);
  const back = new Int32Array(b.length).fill(-1);
  fwd.forEach((j, i) => {
    if (j >= 0) back[j] = i;
  });
  const look = (arr: Int32Array, line: number) => {
    const v = line >= 1 && line <= arr.length ? arr[line - 1] : -1;
    return v >= 0 ? v + 1 : null;
  };
  return { toNew: (l) => look(fwd, l), toOld: (l) => look(back, l), identical: false };
}

let cache: { oldText: string; newText: string; map: LineMap } | null = null;

/** `lineMap` with a one-entry cache (every pane asks about the same pair of texts). */
export function cachedLineMap(oldText: string, newText: string): LineMap {
  if (cache && cache.oldText === oldText && cache.newText === newText) return cache.map;
  cache = { oldText, newText, map: lineMap(oldText, newText) };
  return cache.map;
}
