import { describe, expect, it } from 'vitest';
import { indexEqns, indexVars } from '../graph/cardIndex';
import { fanOutCard, jvpCard } from '../testing/flowCards';
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
    expect(last.rows.at(-1)).toMatchObject({ role: 'gradient', name: 'x (a)', complete: true });
    expect(at(back)!.rows[0].role).toBe('seed');
  });

  it('shows tangents beside values in forward mode', () => {
    const j = jvpCard();
    const d = stepDetails(j, frameAt(j, 1), indexEqns(j.jaxpr), indexVars(j.jaxpr))!;
    const res = d.rows.find((r) => r.role === 'result')!;
    expect(res.tangent!.preview[0]).toBeCloseTo(Math.cos(1.5), 5);
  });
});
