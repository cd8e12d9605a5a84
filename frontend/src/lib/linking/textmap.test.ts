import { describe, expect, it } from 'vitest';
import { syntheticCard } from '../testing/synthetic';
import { eqnSpans, hloSourceLines, lineEqns } from './textmap';

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

describe('HLO source lines', () => {
  it('resolves MLIR location aliases, including callsite and named locations', () => {
    const text = [
      'module @jit_f {',
      '  %0 = stablehlo.sine %arg0 : tensor<3xf32> loc(#loc3)',
      '  %1 = stablehlo.multiply %0, %0 : tensor<3xf32> loc(#loc4)',
      '  %2 = stablehlo.add %1, %1 : tensor<3xf32> loc("<user>":9:2)',
      '  return %2 : tensor<3xf32> loc(#loc)',
      '}',
      '#loc = loc(unknown)',
      '#loc1 = loc("<user>":5:8)',
      '#loc2 = loc("<user>":6:4)',
      '#loc3 = loc("jit(f)/sin"(#loc1))',
      '#loc4 = loc(callsite(#loc2 at #loc1))',
    ].join('\n');
    expect(hloSourceLines(text, 'mlir')).toEqual([
      null,
      5,
      6,
      9,
      null,
      null,
      null,
      null,
      null,
      null,
      null,
    ]);
  });

  it('reads source_line metadata from HLO', () => {
    const text = [
      'HloModule jit_f',
      '  sine.1 = f32[3] sine(p0), metadata={op_name="jit(f)/sin" source_file="<user>" source_line=5}',
      '  ROOT m = f32[3] multiply(sine.1, sine.1)',
    ].join('\n');
    expect(hloSourceLines(text, 'hlo')).toEqual([null, 5, null]);
  });
});
