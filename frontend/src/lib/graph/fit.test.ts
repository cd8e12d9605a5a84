import { describe, expect, it } from 'vitest';
import { acceptable, GROW } from './fit';

const pane = { width: 560, height: 440, k: 1, margin: 10 };

describe('acceptable (first-view candidates)', () => {
  const bare = { width: 300, height: 200 };
  it('takes a candidate no wider than the pane and at most GROW panes tall', () => {
    expect(acceptable({ width: 540, height: 420 }, bare, pane)).toBe(true);
    expect(acceptable({ width: 540, height: 420 * GROW }, bare, pane)).toBe(true);
    expect(acceptable({ width: 541, height: 100 }, bare, pane)).toBe(false);
    expect(acceptable({ width: 500, height: 420 * GROW + 2 }, bare, pane)).toBe(false);
  });

  it('measures against the bare top level when even that does not fit the pane', () => {
    const tall = { width: 300, height: 900 };
    expect(acceptable({ width: 300, height: 900 * GROW }, tall, pane)).toBe(true);
    expect(acceptable({ width: 300, height: 900 * GROW + 2 }, tall, pane)).toBe(false);
    const wide = { width: 800, height: 100 };
    expect(acceptable({ width: 800, height: 300 }, wide, pane)).toBe(true);
    expect(acceptable({ width: 802, height: 300 }, wide, pane)).toBe(false);
  });

  it('compares sizes at the readable zoom', () => {
    expect(acceptable({ width: 1000, height: 100 }, bare, { ...pane, k: 0.5 })).toBe(true);
    expect(acceptable({ width: 1100, height: 100 }, bare, { ...pane, k: 0.5 })).toBe(false);
  });
});
