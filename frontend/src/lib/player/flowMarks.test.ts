import { describe, expect, it } from 'vitest';
import { indexEqns } from '../graph/cardIndex';
import { broadcastCard, CardBuilder, fanOutCard, indexingCard, scalar } from '../testing/flowCards';
import {
  arrowHead,
  contributionMarks,
  ease,
  flowMarks,
  pointAlong,
  stableMarks,
  type Point,
  type RouteOf,
} from './flowMarks';
import { backwardStart, frameAt } from './timeline';

/** Straight routes from a per-node position: variable producers above their consumers. */
function routes(card: ReturnType<typeof fanOutCard>): RouteOf {
  const pos = new Map<string, Point>();
  card.jaxpr.invars.forEach((v, i) => pos.set(v.id, { x: 100 * i, y: 0 }));
  card.jaxpr.eqns.forEach((e, i) => {
    pos.set(e.id, { x: 50 * i, y: 100 * (i + 1) });
    for (const o of e.outvars) pos.set(o.id, pos.get(e.id)!);
  });
  return (v, e) => (pos.has(v) && pos.has(e) ? [pos.get(v)!, pos.get(e)!] : null);
}

describe('flow marks', () => {
  const card = fanOutCard();
  const eqns = indexEqns(card.jaxpr);
  const route = routes(card);
  const marks = contributionMarks(card);
  const back = backwardStart(card.timeline);
  const at = (k: number) => flowMarks(frameAt(card, k), card, eqns, route, marks);

  it('runs backward marks from the consumer to the operand, the way the cotangent goes', () => {
    const m = at(back + 1);
    expect(m).toHaveLength(2);
    for (const x of m) {
      expect(x.phase).toBe('backward');
      expect(x.now).toBe(true);
      const fwd = route(x.varId, x.eqnId)!;
      expect(x.points[0]).toEqual(fwd[fwd.length - 1]);
      expect(x.points[x.points.length - 1]).toEqual(fwd[0]);
    }
    expect(m.map((x) => x.text)).toEqual(['2.25', '0.9975']);
  });

  it('keeps past contributions as marks at rest and moves only the current ones', () => {
    const m = at(back + 3);
    expect(m).toHaveLength(4);
    expect(m.filter((x) => x.now).map((x) => x.eqnId)).toEqual(['e0']);
    expect(at(back)).toHaveLength(0); // the seed travels along no edge
  });

  it('flows the operands of the current forward equation into it', () => {
    const m = at(3);
    expect(m.map((x) => [x.phase, x.eqnId])).toEqual([
      ['forward', 'e2'],
      ['forward', 'e2'],
    ]);
    expect(m[0].points[1]).toEqual(route(m[0].varId, 'e2')![1]);
  });

  it('carries reduction and landing descriptions', () => {
    const b = broadcastCard();
    const bm = flowMarks(frameAt(b, 99), b, indexEqns(b.jaxpr), routes(b), contributionMarks(b));
    expect(bm.some((x) => x.reduction === 'Σ over axis 0: f32[4,3] → f32[3]')).toBe(true);
    const ix = indexingCard();
    const im = flowMarks(
      frameAt(ix, 99),
      ix,
      indexEqns(ix.jaxpr),
      routes(ix),
      contributionMarks(ix),
    );
    const landed = im.filter((x) => x.landing);
    expect(landed).toHaveLength(2);
    expect(landed.every((x) => x.heatmap?.cols === 8)).toBe(true);
  });

  it('scales strength by magnitude across the card', () => {
    const s = [...marks.values()].map((m) => m.t);
    expect(Math.max(...s)).toBe(1);
    expect(Math.min(...s)).toBe(0);
  });
});

describe('geometry', () => {
  const path = [
    { x: 0, y: 0 },
    { x: 10, y: 0 },
    { x: 10, y: 10 },
  ];
  it('finds points along a polyline by length', () => {
    expect(pointAlong(path, 0)).toMatchObject({ x: 0, y: 0 });
    expect(pointAlong(path, 0.25)).toMatchObject({ x: 5, y: 0, angle: 0 });
    expect(pointAlong(path, 0.75)).toMatchObject({ x: 10, y: 5 });
    expect(pointAlong(path, 0.75).angle).toBeCloseTo(Math.PI / 2);
    expect(pointAlong(path, 1)).toMatchObject({ x: 10, y: 10 });
  });
  it('eases from 0 to 1', () => {
    expect(ease(0)).toBe(0);
    expect(ease(0.5)).toBe(0.5);
    expect(ease(1)).toBe(1);
    expect(ease(2)).toBe(1);
  });
  it('draws an arrowhead with its tip at the target', () => {
    expect(arrowHead({ x: 10, y: 0 }, 0, 7).startsWith('M10.0,0.0')).toBe(true);
  });
});

describe('a variable used twice by one equation (x * x)', () => {
  const b = new CardBuilder();
  const x = b.input('a', scalar(3), 'x');
  const [y] = b.eqn('mul', [x, x], [['b', scalar(9), 'y']]);
  const e = b.lastEqn();
  b.outvars = [y];
  b.transpose(null, [{ to: y, value: scalar(1) }]);
  b.transpose(e, [
    { to: x, value: scalar(3) },
    { to: x, value: scalar(3) },
  ]);
  const card = b.build('grad', 'grad(sq)');
  const route: RouteOf = () => [
    { x: 0, y: 0 },
    { x: 0, y: 50 },
  ];
  const eqns = indexEqns(card.jaxpr);

  it('flows along one edge forward, and carries both terms backward', () => {
    const fwd = flowMarks(frameAt(card, 1), card, eqns, route, contributionMarks(card));
    expect(fwd).toHaveLength(1);
    const back = flowMarks(frameAt(card, 3), card, eqns, route, contributionMarks(card));
    expect(back).toHaveLength(1);
    expect(back[0].text).toBe('3 + 3');
    expect(frameAt(card, 3).partials.get(x.id)!.sum.preview[0]).toBe(6);
  });
});

describe('stable marks', () => {
  it('keeps a mark object (and its path data) while nothing about it changes', () => {
    const card = fanOutCard();
    const eqns = indexEqns(card.jaxpr);
    const fixed = new Map<string, Point[]>();
    const route: RouteOf = (v, e) => {
      const k = `${v}>${e}`;
      if (!fixed.has(k))
        fixed.set(k, [
          { x: 0, y: 0 },
          { x: 10, y: 40 },
        ]);
      return fixed.get(k)!;
    };
    const marks = contributionMarks(card);
    const back = backwardStart(card.timeline);
    const a = flowMarks(frameAt(card, back + 2), card, eqns, route, marks);
    const b = stableMarks(
      new Map(a.map((m) => [m.key, m])),
      flowMarks(frameAt(card, back + 3), card, eqns, route, marks),
    );
    const kept = b.filter((m) => a.includes(m));
    // mul's two edges were at rest on both steps; pow → x stopped moving, sin → x is new.
    expect(kept.map((m) => m.eqnId).sort()).toEqual(['e2', 'e2']);
    expect(b.find((m) => m.eqnId === 'e0')!.d).toBe('M10.0,40.0L0.0,0.0');
  });
});
