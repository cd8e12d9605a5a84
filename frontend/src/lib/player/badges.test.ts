import { describe, expect, it } from 'vitest';
import { fanOutCard, fanOutGrad, jvpCard } from '../testing/flowCards';
import { cotangentAttrs, nodeBadges } from './badges';
import { backwardStart, frameAt } from './timeline';

describe('node badges', () => {
  const card = fanOutCard();
  const boxes = [
    { id: 'i:x', varIds: [card.jaxpr.invars[0].id] },
    ...card.jaxpr.eqns.map((e) => ({ id: `n:${e.id}`, varIds: e.outvars.map((v) => v.id) })),
  ];
  const back = backwardStart(card.timeline);

  it('shows values going forward, and keeps a value until its first contribution', () => {
    const f = nodeBadges(boxes, card, frameAt(card, 1));
    expect(f.get('i:x')).toMatchObject({ kind: 'value', text: '1.5', now: false });
    expect(f.get('n:e0')).toMatchObject({ kind: 'value', now: true });
    expect(f.has('n:e1')).toBe(false);
    const b = nodeBadges(boxes, card, frameAt(card, back + 1));
    expect(b.get('i:x')!.kind).toBe('value');
    expect(b.get('n:e0')).toMatchObject({ kind: 'grad', text: '∇ 2.25', now: true });
  });

  it('makes the sum rule visible at the fan-out', () => {
    const first = nodeBadges(boxes, card, frameAt(card, back + 2)).get('i:x')!;
    expect(first).toMatchObject({ text: '∇ 2.992 (1 of 2)', partial: true, now: true });
    const sum = nodeBadges(boxes, card, frameAt(card, back + 3)).get('i:x')!;
    expect(sum).toMatchObject({ text: '∇ 2.992 + 0.1592 = 3.152 (2 of 2)', partial: false });
  });

  it('reports data-cotangent only in the backward phase, empty before a contribution', () => {
    expect(cotangentAttrs(boxes, frameAt(card, 2))).toBeNull();
    expect(cotangentAttrs(boxes, frameAt(card, back))!.get('i:x')).toBe('');
    expect(cotangentAttrs(boxes, frameAt(card, back + 2))!.get('i:x')).toBe('2.992');
    const end = cotangentAttrs(boxes, frameAt(card, back + 3))!.get('i:x')!;
    expect(Number(end)).toBeCloseTo(fanOutGrad(), 3);
  });

  it('puts tangents beside values in forward mode', () => {
    const j = jvpCard();
    const b = nodeBadges([{ id: 'i', varIds: [j.jaxpr.invars[0].id] }], j, frameAt(j, 0));
    expect(b.get('i')!.text).toBe('1.5, ẋ = 1');
  });
});
