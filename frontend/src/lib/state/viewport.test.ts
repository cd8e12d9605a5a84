import { describe, expect, it } from 'vitest';
import { MARGIN, Viewport } from './viewport.svelte';

function view(k = 1) {
  const v = new Viewport();
  v.resize(600, 400);
  v.transform = { x: 0, y: 0, k };
  return v;
}

describe('Viewport.keep (a toggled group stays where it was)', () => {
  it('keeps the box at its old screen place when it fits there', () => {
    const v = view();
    v.keep({ x: 100, y: 50, width: 200, height: 100 }, { x: 40, y: 60 });
    expect(v.toScreen(100, 50)).toEqual({ x: 40, y: 60 });
  });

  it('pans as little as needed to bring an expanded group in', () => {
    const v = view();
    v.keep({ x: 0, y: 0, width: 300, height: 200 }, { x: 400, y: 300 });
    const tl = v.toScreen(0, 0);
    expect(tl.x + 300).toBe(600 - MARGIN);
    expect(tl.y + 200).toBe(400 - MARGIN);
  });

  it('shows the title bar of a group larger than the pane', () => {
    const v = view(2);
    v.keep({ x: 10, y: 10, width: 400, height: 300 }, { x: 250, y: 120 });
    expect(v.toScreen(10, 10)).toEqual({ x: MARGIN, y: MARGIN });
    expect(v.transform.k).toBe(2);
  });
});
