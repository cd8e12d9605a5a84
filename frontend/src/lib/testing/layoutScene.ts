/**
 * What the layout worker does, in node (unit tests): every level of a visible graph through the
 * real ELK, children first, then the composed scene.
 */
import ELK from 'elkjs/lib/elk.bundled.js';
import { fromElk, toElk, type LevelLayout } from '../graph/elk';
import { compose, levelJobs, type Scene } from '../graph/scene';
import type { Hierarchy } from '../graph/tree';
import { visibleGraph } from '../graph/visible';

const elk = new ELK();

export async function layoutScene(h: Hierarchy, open: Set<string>): Promise<Scene> {
  const vg = visibleGraph(h, open);
  const layouts: Record<string, LevelLayout> = {};
  for (const job of levelJobs(vg, h.root))
    layouts[job.id] = fromElk(await elk.layout(toElk(job, (c) => layouts[c])));
  return compose(vg, h.root, layouts);
}
