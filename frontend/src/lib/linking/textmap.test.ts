import { describe, expect, it } from 'vitest';
import { syntheticCard } from '../testing/synthetic';
import { eqnSpans, lineEqns, stageRows } from './textmap';

describe('jaxpr text mapping', () => {
  it('maps every equation line of the root text to its equation', () => {
    const card = syntheticCard({ eqns: 4 });
    const rows = lineEqns(card.jaxpr.text, eqnSpans(card.jaxpr));
    const lines = card.jaxpr.text.split('\n');
    expect(rows[0]).toBeNull(); // "{ lambda ; ... let"
    card.jaxpr.eqns.forEach((e, i) => {
      expect(rows[i + 1]).toBe(e.id);
      expect(lines[i + 1]).toContain(`= ${e.primitive}`);
    });
  });

  it('locates nested equations inside their enclosing equation', () => {
    const card = syntheticCard({ eqns: 4, nested: 2 });
    const spans = eqnSpans(card.jaxpr);
    const inner = card.jaxpr.eqns[3].subjaxprs[0].jaxpr.eqns;
    const rows = lineEqns(card.jaxpr.text, spans);
    for (const e of inner) expect(rows).toContain(e.id);
    const pj = card.jaxpr.eqns[3].id;
    expect(rows.filter((r) => r === pj).length).toBeGreaterThan(0);
  });

  it('leaves blank lines unmapped', () => {
    expect(lineEqns('a\n\nb', [{ id: 'e0', start: 0, end: 4 }])).toEqual(['e0', null, 'e0']);
  });
});

describe('stage row links', () => {
  it('maps rows to their RowLink, sparse rows unmapped', () => {
    const m = stageRows(4, [
      { row: 1, line: 5, eqn_id: 'e1', op_name: 'jit(f)/sin' },
      { row: 3, line: 7, eqn_id: null, op_name: null },
    ]);
    expect(m.ids).toEqual([null, 'row:1', null, 'row:3']);
    expect(m.links.get('row:1')?.eqn_id).toBe('e1');
    expect(m.links.get('row:3')?.line).toBe(7);
  });

  it('ignores links past the end of the text', () => {
    expect(stageRows(2, [{ row: 5, line: 1, eqn_id: 'e0', op_name: null }]).ids).toEqual([
      null,
      null,
    ]);
  });
});
