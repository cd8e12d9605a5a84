import { describe, expect, it } from 'vitest';
import { lineMap } from './linemap';

const OLD = ['import jax', 'def f(x):', '    return x * 2', '', 'print(jax.grad(f)(1.0))'].join(
  '\n',
);

describe('lineMap', () => {
  it('is the identity for the same text', () => {
    const m = lineMap(OLD, OLD);
    expect(m.identical).toBe(true);
    expect(m.toNew(3)).toBe(3);
  });

  it('shifts lines below an inserted line and maps the new line to nothing', () => {
    const m = lineMap(OLD, OLD.replace('import jax', 'import jax\nimport numpy as np'));
    expect(m.toNew(1)).toBe(1);
    expect(m.toNew(3)).toBe(4);
    expect(m.toNew(5)).toBe(6);
    expect(m.toOld(2)).toBeNull();
    expect(m.toOld(4)).toBe(3);
  });

  it('maps a changed line to null and keeps its neighbours', () => {
    const m = lineMap(OLD, OLD.replace('x * 2', 'x * 3'));
    expect(m.toNew(2)).toBe(2);
    expect(m.toNew(3)).toBeNull();
    expect(m.toNew(5)).toBe(5);
  });

  it('follows blocks that moved, through unique anchor lines', () => {
    const a = ['a = 1', 'b = 2', 'x', 'c = 3', 'x', 'd = 4'].join('\n');
    const b = ['d = 4', 'a = 1', 'b = 2', 'x', 'c = 3', 'x'].join('\n');
    const m = lineMap(a, b);
    expect(m.toNew(1)).toBe(2);
    expect(m.toNew(4)).toBe(5);
    expect(m.toNew(3)).toBe(4); // repeated line, matched between anchors
  });

  it('maps lines out of range to null and deleted lines to null', () => {
    const m = lineMap(OLD, OLD.replace('\n\n', '\n'));
    expect(m.toNew(4)).toBeNull();
    expect(m.toNew(5)).toBe(4);
    expect(m.toNew(0)).toBeNull();
    expect(m.toNew(99)).toBeNull();
  });

  it('handles a large program with an edit in the middle quickly', () => {
    const lines = Array.from({ length: 5000 }, (_, i) => `y${i} = ${i % 7}`);
    const edited = [...lines.slice(0, 2500), 'inserted = 1', ...lines.slice(2500)];
    const m = lineMap(lines.join('\n'), edited.join('\n'));
    expect(m.toNew(2500)).toBe(2500);
    expect(m.toNew(2501)).toBe(2502);
    expect(m.toNew(5000)).toBe(5001);
  });
});
