/**
 * What the user is pointing at, shared by every pane for linked highlighting. A focus is an
 * equation, a group of equations (a graph group: a user call, a scope, a chunk), or a source
 * line; hovering sets a transient focus over the pinned one (click or keyboard), so moving the
 * mouse away returns every pane to the pinned selection. `onPin` lets the workspace react to a
 * pin from any pane (the graph reveals a pinned equation hidden in a collapsed group).
 */
export type Focus =
  | { kind: 'eqn'; id: string }
  | { kind: 'group'; id: string; eqns: string[] }
  | { kind: 'line'; line: number };

export class Selection {
  cardIndex = $state(0);
  pinned = $state.raw<Focus | null>(null);
  hover = $state.raw<Focus | null>(null);
  onPin: ((f: Focus | null) => void) | null = null;

  get active(): Focus | null {
    return this.hover ?? this.pinned;
  }

  hoverEqn(id: string | null) {
    this.hover = id ? { kind: 'eqn', id } : null;
  }

  hoverGroup(id: string, eqns: string[]) {
    this.hover = { kind: 'group', id, eqns };
  }

  hoverLine(line: number | null) {
    this.hover = line ? { kind: 'line', line } : null;
  }

  #pin(f: Focus | null) {
    this.pinned = f;
    this.onPin?.(f);
  }

  pinEqn(id: string | null) {
    this.#pin(id ? { kind: 'eqn', id } : null);
  }

  pinGroup(id: string, eqns: string[]) {
    this.#pin({ kind: 'group', id, eqns });
  }

  pinLine(line: number | null) {
    this.#pin(line ? { kind: 'line', line } : null);
  }

  reset() {
    this.pinned = null;
    this.hover = null;
  }
}
