import { describe, expect, it } from 'vitest';
import { layoutScene, newLevels } from '../testing/layoutScene';
import { syntheticProgram } from '../testing/synthetic';
import type { LevelLayout, Rect } from './elk';
import { buildHierarchy } from './hierarchy';
import type { Scene } from './scene';
import { growths, stretch } from './stretch';
import { ancestors, isGroup, type Hierarchy } from './tree';
import { visibleGraph } from './visible';

const overlaps = (a: Rect, b: Rect) =>
  a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
const inside = (c: Rect, p: Rect) =>
  c.x >= p.x - 0.5 &&
  c.y >= p.y - 0.5 &&
  c.x + c.width <= p.x + p.width + 0.5 &&
  c.y + c.height <= p.y + p.height + 0.5;

/** Every box inside its frame, no two siblings overlapping. */
function sound(h: Hierarchy, scene: Scene, open: Set<string>) {
  const vg = visibleGraph(h, open);
  for (const b of [...scene.frames, ...scene.boxes]) {
    const frame = scene.byId.get(b.box.level);
    if (frame) expect(inside(b, frame), b.box.id).toBe(true);
  }
  for (const level of vg.levels.values()) {
    const boxes = level.boxes.map((id) => scene.byId.get(id)!);
    for (let i = 0; i < boxes.length; i++)
      for (let j = i + 1; j < boxes.length; j++)
        expect(overlaps(boxes[i], boxes[j]), `${boxes[i].box.id} ${boxes[j].box.id}`).toBe(false);
  }
}

describe('stretch', () => {
  const layout: LevelLayout = {
    width: 300,
    height: 200,
    nodes: {
      a: { x: 10, y: 10, width: 50, height: 40 },
      right: { x: 100, y: 10, width: 50, height: 40 },
      below: { x: 10, y: 100, width: 50, height: 40 },
      left: { x: 0, y: 60, width: 5, height: 5 },
    },
    edges: {
      ab: {
        points: [
          { x: 35, y: 50 },
          { x: 35, y: 100 },
        ],
        label: { x: 35, y: 75 },
      },
    },
  };

  it('grows one box and moves what is right of it and below it, nothing else', () => {
    const s = stretch(layout, [{ id: 'a', dw: 30, dh: 20 }]);
    expect(s.nodes.a).toEqual({ x: 10, y: 10, width: 80, height: 60 });
    expect(s.nodes.right).toMatchObject({ x: 130, y: 10 });
    expect(s.nodes.below).toMatchObject({ x: 10, y: 120 });
    expect(s.nodes.left).toMatchObject({ x: 0, y: 80 });
    expect(s.edges.ab.points).toEqual([
      { x: 35, y: 70 },
      { x: 35, y: 120 },
    ]);
    expect([s.width, s.height]).toEqual([330, 220]);
    expect(layout.nodes.a.width).toBe(50); // the cached layout is left as it was
  });

  it('leaves what is right of a box that got narrower (while taller) where it was', () => {
    const s = stretch(layout, [{ id: 'a', dw: -20, dh: 20 }]);
    expect(s.nodes.a).toEqual({ x: 10, y: 10, width: 30, height: 60 });
    expect(s.nodes.right).toMatchObject({ x: 100, y: 10 });
    expect(s.nodes.below).toMatchObject({ x: 10, y: 120 });
    expect([s.width, s.height]).toEqual([300, 220]);
  });

  it('is only used when children grew and nothing else changed', () => {
    const g = (w: number, edges = [{ id: 'e', sources: ['a'], targets: ['b'] }]) => ({
      id: 'L',
      children: [
        { id: 'a', width: w, height: 40 },
        { id: 'b', width: 50, height: 40 },
      ],
      edges,
    });
    expect(growths(g(50), g(80))).toEqual([{ id: 'a', dw: 30, dh: 0 }]);
    expect(growths(g(80), g(50))).toBeNull(); // a collapse: laid out again
    expect(growths(g(50), g(50))).toBeNull();
    expect(growths(g(50), g(80, []))).toBeNull();
  });

  it('keeps every level sound when groups are expanded one after another (real ELK)', async () => {
    const { card } = syntheticProgram({ layers: 2 });
    const h = buildHierarchy(card);
    const levels = newLevels();
    const open = new Set<string>();
    await layoutScene(h, open, levels);
    // Expand the deepest groups' chain, top down, as a reader drills in.
    const deepest = [...h.nodes.values()]
      .filter((n) => isGroup(n) && n.id !== h.root)
      .sort((a, b) => b.depth - a.depth)[0];
    const chain = [...ancestors(h, deepest.id).reverse().slice(1), deepest.id];
    expect(chain.length).toBeGreaterThan(2);
    let stretched = 0;
    for (const id of chain) {
      open.add(id);
      const before = levels.totals.stretched;
      const scene = await layoutScene(h, open, levels, true);
      stretched += levels.totals.stretched - before;
      sound(h, scene, open);
    }
    expect(stretched).toBeGreaterThan(chain.length);
  });
});
