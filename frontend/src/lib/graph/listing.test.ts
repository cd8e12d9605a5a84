import { describe, expect, it } from 'vitest';
import { syntheticCard, syntheticProgram } from '../testing/synthetic';
import { countEqns } from './cardIndex';
import { pythonListing } from './listing';
import { pythonNames } from './names';

describe('Python-name listing', () => {
  it('writes one row per equation with the user names, JAX-style', () => {
    const { card } = syntheticProgram({ layers: 1 });
    const l = pythonListing(card.jaxpr, pythonNames(card.jaxpr));
    const rows = l.text.split('\n');
    expect(rows).toHaveLength(l.lineEqns.length);
    expect(rows[0]).toMatch(
      /^\{ lambda ; params\['blocks'\]\[0\]\['Wq'\]:f32\[8,16\] .* x:f32\[8,16\] y:f32\[8,16\]\. let$/,
    );
    const q = card.jaxpr.eqns.find((e) => e.outvars[0].user_name === 'q')!;
    const row = rows[l.lineEqns.indexOf(q.id)];
    expect(row).toMatch(/^ {4}q:f32\[8,16\] = dot_general /);
    expect(new Set(l.lineEqns.filter(Boolean)).size).toBe(card.jaxpr.eqns.length);
    expect(rows.at(-1)).toMatch(/^ {2}in \(value, /);
  });

  it('never shows an unnamed value under a Python name', () => {
    const { card } = syntheticProgram({ layers: 1 });
    const names = pythonNames(card.jaxpr);
    // Give an unnamed intermediate a jaxpr name that is also a Python name in the card.
    const unnamed = card.jaxpr.eqns.find((e) => !e.outvars[0].user_name)!;
    unnamed.outvars[0] = { ...unnamed.outvars[0], name: 'q' };
    const l = pythonListing(card.jaxpr, names);
    const row = l.text.split('\n')[l.lineEqns.indexOf(unnamed.id)];
    expect(row).toMatch(/^ {4}_q:f32\[8,16\] = /);
  });

  it('writes sub-jaxprs inline, their rows mapped to their own equations', () => {
    const card = syntheticCard({ eqns: 6, nested: 3 });
    const l = pythonListing(card.jaxpr, new Map());
    const mapped = new Set(l.lineEqns.filter(Boolean));
    expect(mapped.size).toBe(countEqns(card.jaxpr));
    const pjit = card.jaxpr.eqns[5];
    const rows = l.text.split('\n');
    expect(rows[l.lineEqns.indexOf(pjit.id)]).toMatch(/= pjit\[name=inner$/);
    expect(rows).toContain(
      '      jaxpr={ lambda ; ' +
        pjit.subjaxprs[0].jaxpr.invars.map((v) => `${v.name}:${v.aval.short}`).join(' ') +
        '. let',
    );
  });
});
