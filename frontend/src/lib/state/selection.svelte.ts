/**
 * What the user is pointing at, shared by every pane for linked highlighting. A focus is an
 * equation or a source line; hovering sets a transient focus over the pinned one (click or
 * keyboard), so moving the mouse away returns every pane to the pinned selection.
 */
export type Focus = { kind: 'eqn'; id: string } | { kind: 'line'; line: number };

export class Selection {
  cardIndex = $state(0);
  pinned = $state.raw<Focus | null>(null);
  hover = $state.raw<Focus | null>(null);

  get active(): Focus | null {
    return this.hover ?? this.pinned;
  }

  hoverEqn(id: string | null) {
    this.hover = id ? { kind: 'eqn', id } : null;
  }

  hoverLine(line: number | null) {
    this.hover = line ? { kind: 'line', line } : null;
  }

  pinEqn(id: string | null) {
    this.pinned = id ? { kind: 'eqn', id } : null;
  }

  pinLine(line: number | null) {
    this.pinned = line ? { kind: 'line', line } : null;
  }

  reset() {
    this.pinned = null;
    this.hover = null;
  }
}
