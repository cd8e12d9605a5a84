import { describe, expect, it } from 'vitest';
import { scanCard } from '../testing/flowCards';
import { iterationText, loopSteps, loopViews, recordedText } from './loops';
import { frameAt } from './timeline';

describe('loop iterations', () => {
  it('maps every iteration to its step, forward and in reverse', () => {
    const card = scanCard(4, 4);
    const s = loopSteps(card, card.loops![0].eqn_id);
    expect([...s.forward.keys()]).toEqual([0, 1, 2, 3]);
    expect([...s.backward.keys()]).toEqual([3, 2, 1, 0]);
    expect(s.backward.get(3)!).toBeGreaterThan(s.forward.get(3)!);
  });

  it('shows the carry entering the iteration and what it produced', () => {
    const card = scanCard(4, 4);
    const s = loopSteps(card, card.loops![0].eqn_id);
    const v = loopViews(card, frameAt(card, s.forward.get(2)!))[0];
    expect(v.active).toBe(true);
    expect(v.iteration).toBe(2);
    expect(v.entry!.carry[0].preview[0]).toBeCloseTo(2.5); // c1 = 1, c2 = 0.5 + 2
    expect(v.entry!.outputs[0].preview[0]).toBeCloseTo(4.25); // c3 = 2.5 * 0.5 + 3
    const b = loopViews(card, frameAt(card, s.backward.get(1)!))[0];
    expect(b.phase).toBe('backward');
    expect(b.entry!.index).toBe(1);
    expect(loopViews(card, frameAt(card, -1))[0].iteration).toBeNull();
  });

  it('says how many iterations were recorded', () => {
    const part = scanCard(2, 4);
    expect(recordedText(part.loops![0])).toBe('first 2 of 4 iterations recorded');
    expect(part.notices![0].kind).toBe('loop_truncated');
    expect(recordedText(scanCard(4, 4).loops![0])).toBe('all 4 iterations recorded');
    expect(iterationText(3, 5)).toBe('iteration 3 of 0…4');
  });
});
