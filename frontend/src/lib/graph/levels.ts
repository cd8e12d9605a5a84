/**
 * The layout worker's work, apart from its messaging so that node tests run it with the real
 * ELK: each level of a request, children first (a parent takes its children's sizes), from the
 * cache when its graph is unchanged, else stretched around grown children when the request
 * allows it (stretch.ts: expanding a group lays out that group alone), else through ELK.
 */
import type { ELK as ElkApi, ElkNode } from 'elkjs/lib/elk-api';
import { fromElk, toElk, type LevelJob, type LevelLayout } from './elk';
import { growths, stretch } from './stretch';

const CACHE_MAX = 4000;

function remember<K, V>(m: Map<K, V>, k: K, v: V) {
  if (m.size >= CACHE_MAX && !m.has(k)) m.delete(m.keys().next().value!);
  m.set(k, v);
}

export interface LevelsOutcome {
  layouts: Record<string, LevelLayout>;
  /** Levels ELK ran on. */
  computed: number;
  /** Levels stretched around a grown child. */
  stretched: number;
}

export class Levels {
  /** ELK graph (as JSON) → its layout. */
  private cache = new Map<string, LevelLayout>();
  /**
   * Each level's last graph (as JSON: ELK writes its results into the graph it is given) and
   * layout, which a grown child can stretch.
   */
  private last = new Map<string, { key: string; layout: LevelLayout }>();

  /** Counts over every request (tests, figures). */
  readonly totals = { computed: 0, stretched: 0 };

  constructor(private elk: ElkApi) {}

  async layout(jobs: LevelJob[], mayStretch: boolean): Promise<LevelsOutcome> {
    const layouts: Record<string, LevelLayout> = {};
    let computed = 0;
    let stretched = 0;
    const size = (child: string) => layouts[child] ?? { width: 60, height: 40 };
    for (const job of jobs) {
      const graph = toElk(job, size);
      const key = JSON.stringify(graph);
      let l = this.cache.get(key);
      if (!l) {
        const prev = mayStretch ? this.last.get(job.id) : undefined;
        const grown = prev ? growths(JSON.parse(prev.key) as ElkNode, graph) : null;
        if (prev && grown) {
          l = stretch(prev.layout, grown);
          stretched += 1;
        } else {
          l = fromElk(await this.elk.layout(graph));
          computed += 1;
        }
        remember(this.cache, key, l);
      }
      remember(this.last, job.id, { key, layout: l });
      layouts[job.id] = l;
    }
    this.totals.computed += computed;
    this.totals.stretched += stretched;
    return { layouts, computed, stretched };
  }
}
