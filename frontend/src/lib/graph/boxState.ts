/**
 * The player's state of each drawn box at a frame: an equation is idle, forward (computed) or
 * backward (its cotangents arrived); a collapsed group or a frame shows the furthest state of
 * the equations inside; an input or output shows whether its value / cotangent is known.
 * Pure; the graph's per-step drawing reads it.
 */
import type { EqnState, Frame } from '../player/timeline';
import type { Scene, SceneBox } from './scene';
import { eqnsUnder, isGroup, type Hierarchy } from './tree';

const memo = new WeakMap<Hierarchy, Map<string, string[]>>();

/** eqnsUnder, memoised per hierarchy (the player asks every frame). */
function under(h: Hierarchy, id: string): string[] {
  let m = memo.get(h);
  if (!m) memo.set(h, (m = new Map()));
  let list = m.get(id);
  if (!list) m.set(id, (list = eqnsUnder(h, id)));
  return list;
}

function rank(s: EqnState | undefined): number {
  return s === 'backward' ? 2 : s === 'forward' ? 1 : 0;
}

function stateOf(b: SceneBox, h: Hierarchy, frame: Frame): EqnState {
  const n = b.box.node;
  if (!n) {
    const v = b.box.port?.varIds[0];
    return v && frame.cotangents.has(v)
      ? 'backward'
      : v && frame.values.has(v)
        ? 'forward'
        : 'idle';
  }
  if (n.eqnId && !isGroup(n)) return frame.eqns.get(n.eqnId) ?? 'idle';
  if (isGroup(n)) {
    let best: EqnState = 'idle';
    for (const e of under(h, n.id)) {
      const s = frame.eqns.get(e);
      if (rank(s) > rank(best)) best = s!;
      if (best === 'backward') break;
    }
    return best;
  }
  const v = n.varIds[0];
  if (v && frame.cotangents.has(v)) return 'backward';
  if (v && frame.values.has(v)) return 'forward';
  return 'idle';
}

/** State of every box and frame of a scene (all idle without a frame). */
export function boxStates(scene: Scene, h: Hierarchy, frame: Frame | null): Map<string, EqnState> {
  const out = new Map<string, EqnState>();
  for (const b of [...scene.frames, ...scene.boxes])
    out.set(b.box.id, frame ? stateOf(b, h, frame) : 'idle');
  return out;
}

/** The box the current step lights (its equation's box or the collapsed group holding it). */
export function currentBox(
  h: Hierarchy,
  rep: Map<string, string>,
  frame: Frame | null,
): string | null {
  const id = frame?.current?.eqn_id;
  const node = id ? h.eqnNode.get(id) : undefined;
  return node ? (rep.get(node) ?? null) : null;
}
