import { describe, expect, it } from 'vitest';
import { broadcastCard, fanOutCard, indexingCard, summarize, scalar } from '../testing/flowCards';
import {
  cardTitle,
  forwardText,
  scalarText,
  partialSentence,
  partialText,
  reductionText,
} from './flowText';
import { backwardStart, frameAt } from './timeline';

describe('partial-sum texts', () => {
  const card = fanOutCard(1.5);
  const x = card.jaxpr.invars[0].id;
  const back = backwardStart(card.timeline);

  it('labels the first contribution as 1 of 2, then shows the addition', () => {
    const first = frameAt(card, back + 2).partials.get(x)!;
    expect(partialText(first, true)).toBe('∇ 2.992 (1 of 2)');
    expect(partialSentence('x', first, false)).toBe(
      '∇ x = 2.992 (1 of 2 contributions so far: a partial sum)',
    );
    const total = frameAt(card, back + 3).partials.get(x)!;
    expect(partialText(total, true)).toBe('∇ 2.992 + 0.1592 = 3.152 (2 of 2)');
    expect(partialText(total, false)).toBe('∇ 3.152 (2 of 2)');
    expect(partialSentence('x', total, true)).toContain('the total');
  });

  it('puts negative terms in parentheses', () => {
    const neg = fanOutCard(2.0);
    const p = frameAt(neg, 99).partials.get(neg.jaxpr.invars[0].id)!;
    expect(partialText(p, true)).toBe('∇ 3.637 + (-1.665) = 1.973 (2 of 2)');
  });

  it('omits the count for a variable used once', () => {
    const out = card.jaxpr.outvars[0] as { id: string };
    expect(partialText(frameAt(card, back).partials.get(out.id)!, true)).toBe('∇ 1');
  });

  it('describes a broadcast reduction back to the operand shape', () => {
    const b = broadcastCard();
    const c = b.timeline.flatMap((s) => s.contributions ?? []).find((c) => c.reduced_from)!;
    expect(reductionText(c)).toBe('Σ over axis 0: f32[4,3] → f32[3]');
    const plain = b.timeline.flatMap((s) => s.contributions ?? []).find((c) => !c.reduced_from)!;
    expect(reductionText(plain)).toBeNull();
  });

  it('keeps where an indexing contribution lands', () => {
    const c = indexingCard()
      .timeline.flatMap((s) => s.contributions ?? [])
      .filter((c) => c.landing);
    expect(c.map((x) => x.landing)).toEqual(['element 5 of f32[8]', 'element 2 of f32[8]']);
    expect(c[0].value.heatmap?.cols).toBe(8);
  });

  it('prints tangents beside primal values', () => {
    expect(forwardText(summarize(scalar(1.5)), summarize(scalar(1)))).toBe('1.5, ẋ = 1');
    expect(forwardText(summarize(scalar(1.5)), null)).toBe('1.5');
  });
});

describe('scalars', () => {
  it('prints a scalar as its dtype holds it', () => {
    const v = { ...summarize(scalar(3)), preview: [3.1516437530517578] };
    expect(scalarText(v)).toBe('3.151644');
    expect(scalarText({ ...v, dtype: 'float64' })).toBe('3.151643753051758');
    expect(scalarText({ ...v, preview: [2] })).toBe('2');
    expect(scalarText({ ...v, preview: ['nan'] })).toBe('nan');
  });
});

describe('card titles', () => {
  it('names the whole composition', () => {
    expect(cardTitle({ title: 'jit(loss)', fun_name: 'loss', transforms: ['jit', 'grad'] })).toBe(
      'jit(grad(loss))',
    );
    expect(
      cardTitle({ title: 'jit(grad(loss))', fun_name: 'loss', transforms: ['jit', 'grad'] }),
    ).toBe('jit(grad(loss))');
    expect(cardTitle({ title: 'grad(f)', fun_name: 'f', transforms: ['grad'] })).toBe('grad(f)');
    expect(cardTitle({ title: 'grad(f)', fun_name: 'f' })).toBe('grad(f)');
  });
});
