import { describe, expect, it } from 'vitest';
import { indexEqns, indexVars } from '../graph/cardIndex';
import { broadcastCard, fanOutCard, jvpCard } from '../testing/flowCards';
import { stepDetails } from './stepDetails';
import { backwardStart, frameAt } from './timeline';

describe('step details', () => {
  const card = fanOutCard();
  const eqns = indexEqns(card.jaxpr);
  const vars = indexVars(card.jaxpr);
  const at = (k: number) => stepDetails(card, frameAt(card, k), eqns, vars);
  const back = backwardStart(card.timeline);

  it('is empty before the first step', () => {
    expect(at(-1)).toBeNull();
  });

  it('lists operands and results of a forward step', () => {
    const d = at(3)!;
    expect(d.title).toBe('d = mul');
    expect(d.rows.map((r) => [r.role, r.name])).toEqual([
      ['operand', 'b'],
      ['operand', 'c'],
      ['result', 'result (d)'],
    ]);
  });

  it('says what each contribution adds at its receiver, then the gradients at the end', () => {
    const first = at(back + 2)!;
    expect(first.rows).toHaveLength(1);
    expect(first.rows[0].sentence).toBe(
      '∇ x (a) = 2.992 (1 of 2 contributions so far: a partial sum)',
    );
    expect(first.rows[0].complete).toBe(false);
    const last = at(back + 3)!;
    expect(last.rows[0].sentence).toBe(
      '∇ x (a) = 2.992 + 0.1592 = 3.152 (2 of 2 contributions: the total)',
    );
    // x's total was just stated, so it is not repeated as a gradient row.
    expect(last.rows.map((r) => r.role)).toEqual(['sent']);
    expect(at(back)!.rows[0].role).toBe('seed');
  });

  it("lists every other input's whole gradient after the last step", () => {
    const b = broadcastCard();
    const d = stepDetails(b, frameAt(b, 99), indexEqns(b.jaxpr), indexVars(b.jaxpr))!;
    expect(d.rows.map((r) => [r.role, r.name])).toEqual([
      ['sent', 'bias (b)'],
      ['gradient', 'h (a)'],
    ]);
    expect(d.rows[1].sentence).toBe('∇ h (a) = μ 1 (its whole cotangent)');
  });

  it('shows tangents beside values in forward mode', () => {
    const j = jvpCard();
    const d = stepDetails(j, frameAt(j, 1), indexEqns(j.jaxpr), indexVars(j.jaxpr))!;
    const res = d.rows.find((r) => r.role === 'result')!;
    expect(res.tangent!.preview[0]).toBeCloseTo(Math.cos(1.5), 5);
  });
});
