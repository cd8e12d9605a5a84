/**
 * What the layout worker does, in node (unit tests): every level of a visible graph through the
 * real ELK (levels.ts), children first, then the composed scene. Pass the same `levels` to
 * several calls to keep its cache, as the worker does; `stretch` as a toggle asks it.
 */
import ELK from 'elkjs/lib/elk.bundled.js';
import { Levels } from '../graph/levels';
import { compose, levelJobs, type Scene } from '../graph/scene';
import type { Hierarchy } from '../graph/tree';
import { visibleGraph } from '../graph/visible';

const elk = new ELK();

export async function layoutScene(
  h: Hierarchy,
  open: Set<string>,
  levels = new Levels(elk),
  stretch = false,
): Promise<Scene> {
  const vg = visibleGraph(h, open);
  const out = await levels.layout(levelJobs(vg, h.root), stretch);
  return compose(vg, h.root, out.layouts);
}

export function newLevels(): Levels {
  return new Levels(elk);
}
