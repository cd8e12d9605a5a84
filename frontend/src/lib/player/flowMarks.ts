/**
 * What the graph's flow layer draws at a frame, as plain data: one mark per edge that carries
 * something. Backward marks run from the consuming equation back to the operand's producer
 * (the direction the cotangent travels), one per edge that has sent a contribution so far; the
 * current step's contributions are `now` (they move and carry a value chip). A forward step's
 * operands flow into its equation. Geometry helpers place a moving dot along a polyline. Pure:
 * the caller supplies edge routes (`RouteOf`), so it never depends on the layout engine.
 */
import type { Contribution, EqnData, Heatmap, TraceCard } from '../protocol/types';
import { contributionChip, printed, reductionText } from './flowText';
import { edgeKey, gradMarks, type Frame, type GradMark } from './timeline';

export interface Point {
  x: number;
  y: number;
}

/** The drawn route of the forward edge `varId → eqnId` (source first), or null if not drawn. */
export type RouteOf = (varId: string, eqnId: string) => Point[] | null;

export interface FlowMark {
  key: string;
  varId: string;
  eqnId: string;
  phase: 'forward' | 'backward';
  /** In the direction of travel. */
  points: Point[];
  /** SVG path data of `points`, and of the arrowhead at its end (backward marks). */
  d: string;
  head: string;
  /** Travels on the current step (moves, shows its chip). */
  now: boolean;
  text: string;
  /** 0..1 log-scaled magnitude among the card's contributions. */
  strength: number;
  nonFinite: boolean;
  reduction: string | null;
  landing: string | null;
  heatmap: Heatmap | null;
  /**
   * The chip says more than the receiving badge: the variable sums several contributions, or
   * this one was reduced or lands in part of it. Other chips only show while moving.
   */
  informative: boolean;
}

interface Geometry {
  points: Point[];
  d: string;
  head: string;
  headNow: string;
}

const geoMemo = new WeakMap<Point[], { fwd?: Geometry; back?: Geometry }>();

/** Path data of a route (reversed for backward travel), computed once per route array. */
function geometry(route: Point[], backward: boolean): Geometry {
  let entry = geoMemo.get(route);
  if (!entry) geoMemo.set(route, (entry = {}));
  const slot = backward ? 'back' : 'fwd';
  const hit = entry[slot];
  if (hit) return hit;
  const points = backward ? [...route].reverse() : route;
  const n = points.length;
  const angle = Math.atan2(points[n - 1].y - points[n - 2].y, points[n - 1].x - points[n - 2].x);
  const g: Geometry = {
    points,
    d: polyline(points),
    head: arrowHead(points[n - 1], angle, 6.5),
    headNow: arrowHead(points[n - 1], angle, 8),
  };
  entry[slot] = g;
  return g;
}

/** Magnitude marks of every contribution of a card, keyed by contribution (card-wide scale). */
export function contributionMarks(card: TraceCard): Map<Contribution, GradMark> {
  const all = card.timeline.flatMap((s) => s.contributions ?? []);
  const keyed: Record<string, Contribution['value']> = {};
  all.forEach((c, i) => (keyed[i] = c.value));
  const marks = gradMarks(keyed);
  return new Map(all.map((c, i) => [c, marks.get(String(i))!]));
}

function backwardMark(
  c: Contribution,
  now: boolean,
  routeOf: RouteOf,
  marks: Map<Contribution, GradMark>,
): FlowMark | null {
  if (!c.from_eqn) return null;
  const route = routeOf(c.var_id, c.from_eqn);
  if (!route || route.length < 2) return null;
  const m = marks.get(c);
  const g = geometry(route, true);
  return {
    key: `b:${edgeKey(c.var_id, c.from_eqn)}`,
    varId: c.var_id,
    eqnId: c.from_eqn,
    phase: 'backward',
    points: g.points,
    d: g.d,
    head: now ? g.headNow : g.head,
    now,
    text: contributionChip(c),
    strength: m?.t ?? 0,
    nonFinite: m?.nonFinite ?? false,
    reduction: reductionText(c),
    landing: c.landing ?? null,
    heatmap: c.landing ? (c.value.heatmap ?? null) : null,
    informative: c.of > 1 || !!c.landing || (c.reduced_axes ?? []).length > 0,
  };
}

function forwardMarks(frame: Frame, card: TraceCard, eqn: EqnData, routeOf: RouteOf): FlowMark[] {
  const out: FlowMark[] = [];
  const seen = new Set<string>();
  for (const a of eqn.invars) {
    // An operand used twice (mul x x) flows along one edge.
    if (!('id' in a) || !('name' in a) || seen.has(a.id)) continue;
    seen.add(a.id);
    const route = routeOf(a.id, eqn.id);
    const v = card.values[a.id];
    if (!route || route.length < 2 || !v || !frame.values.has(a.id)) continue;
    out.push({
      key: `f:${edgeKey(a.id, eqn.id)}`,
      varId: a.id,
      eqnId: eqn.id,
      phase: 'forward',
      points: route,
      d: geometry(route, false).d,
      head: '',
      now: true,
      text: printed(v),
      strength: 0,
      nonFinite: v.nan_count > 0 || v.inf_count > 0,
      reduction: null,
      landing: null,
      heatmap: null,
      informative: false,
    });
  }
  return out;
}

/** Every mark of a frame: past and current backward edges, or the current forward step's. */
export function flowMarks(
  frame: Frame | null,
  card: TraceCard,
  eqns: Map<string, EqnData>,
  routeOf: RouteOf,
  marks: Map<Contribution, GradMark>,
): FlowMark[] {
  if (!frame || frame.step < 0) return [];
  if (frame.phase === 'forward') {
    const eqn = frame.current?.eqn_id ? eqns.get(frame.current.eqn_id) : undefined;
    return eqn ? forwardMarks(frame, card, eqn, routeOf) : [];
  }
  const arriving = new Set(frame.arriving);
  const out: FlowMark[] = [];
  for (const c of frame.sent.values()) {
    const m = backwardMark(c, arriving.has(c), routeOf, marks);
    if (!m) continue;
    // Several contributions along one edge in one step (mul x x sends two to x): one chip
    // with every term, as they are added.
    const same = frame.arriving.filter((o) => o.var_id === c.var_id && o.from_eqn === c.from_eqn);
    if (m.now && same.length > 1) {
      m.text = same
        .map((o, i) =>
          i && printed(o.value).startsWith('-') ? `(${printed(o.value)})` : printed(o.value),
        )
        .join(' + ');
      m.informative = true;
    }
    out.push(m);
  }
  return out;
}

/** Ease in and out, so a dot leaves and arrives gently. */
export function ease(t: number): number {
  const x = Math.max(0, Math.min(1, t));
  return x < 0.5 ? 2 * x * x : 1 - Math.pow(-2 * x + 2, 2) / 2;
}

/** The point at fraction t of a polyline's length, with the direction of travel there. */
export function pointAlong(points: Point[], t: number): Point & { angle: number } {
  const seg: number[] = [];
  let total = 0;
  for (let i = 1; i < points.length; i++) {
    const d = Math.hypot(points[i].x - points[i - 1].x, points[i].y - points[i - 1].y);
    seg.push(d);
    total += d;
  }
  let left = Math.max(0, Math.min(1, t)) * total;
  for (let i = 0; i < seg.length; i++) {
    const a = points[i];
    const b = points[i + 1];
    if (left <= seg[i] || i === seg.length - 1) {
      const f = seg[i] > 0 ? Math.min(1, left / seg[i]) : 0;
      return {
        x: a.x + (b.x - a.x) * f,
        y: a.y + (b.y - a.y) * f,
        angle: Math.atan2(b.y - a.y, b.x - a.x),
      };
    }
    left -= seg[i];
  }
  const p = points[0] ?? { x: 0, y: 0 };
  return { ...p, angle: 0 };
}

/** A small filled triangle (SVG path data) with its tip at `tip`, pointing along `angle`. */
export function arrowHead(tip: Point, angle: number, size = 7): string {
  const back = (a: number) => ({
    x: tip.x - size * Math.cos(angle + a),
    y: tip.y - size * Math.sin(angle + a),
  });
  const l = back(0.45);
  const r = back(-0.45);
  const f = (n: number) => n.toFixed(1);
  return `M${f(tip.x)},${f(tip.y)}L${f(l.x)},${f(l.y)}L${f(r.x)},${f(r.y)}Z`;
}

/** Polyline path data. */
export function polyline(points: Point[]): string {
  return points.map((p, i) => `${i ? 'L' : 'M'}${p.x.toFixed(1)},${p.y.toFixed(1)}`).join('');
}

/** Reuse the previous frame's mark objects where nothing changed, so drawing skips them. */
export function stableMarks(prev: Map<string, FlowMark>, next: FlowMark[]): FlowMark[] {
  return next.map((m) => {
    const old = prev.get(m.key);
    if (!old) return m;
    for (const k of Object.keys(m) as (keyof FlowMark)[]) if (old[k] !== m[k]) return m;
    return old;
  });
}
