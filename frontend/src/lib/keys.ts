/**
 * Key chords in CodeMirror's notation ("Mod-Enter", "Alt-ArrowRight", "?"), matched against
 * KeyboardEvents. "Mod" is Cmd on macOS and Ctrl elsewhere. Pure, so it is unit-tested.
 */
export interface KeyLike {
  key: string;
  ctrlKey: boolean;
  metaKey: boolean;
  altKey: boolean;
  shiftKey: boolean;
}

export function matchKey(ev: KeyLike, chord: string, mac = false): boolean {
  const parts = chord.split('-');
  // A trailing "-" (as in "Mod--") means the key itself is "-".
  let key = parts.pop() ?? '';
  if (key === '' && chord.endsWith('-')) {
    parts.pop();
    key = '-';
  }
  const want = { ctrl: false, meta: false, alt: false, shift: false };
  for (const p of parts) {
    if (p === 'Mod') want[mac ? 'meta' : 'ctrl'] = true;
    else if (p === 'Ctrl') want.ctrl = true;
    else if (p === 'Cmd' || p === 'Meta') want.meta = true;
    else if (p === 'Alt') want.alt = true;
    else if (p === 'Shift') want.shift = true;
  }
  const single = key.length === 1;
  const sameKey = single ? ev.key.toLowerCase() === key.toLowerCase() : ev.key === key;
  // For printable keys Shift is part of the character ("?" needs Shift), so it is only
  // compared for named keys or when the chord asks for it.
  const shiftOk = single && !want.shift ? true : ev.shiftKey === want.shift;
  return (
    sameKey &&
    shiftOk &&
    ev.ctrlKey === want.ctrl &&
    ev.metaKey === want.meta &&
    ev.altKey === want.alt
  );
}

/** How a chord is shown to people. */
export function chordLabel(chord: string, mac = false): string {
  return chord
    .replace('Mod', mac ? '⌘' : 'Ctrl')
    .replace('ArrowRight', '→')
    .replace('ArrowLeft', '←')
    .replace(/-(?!$)/g, '+');
}

/** Typing into these must not trigger single-key shortcuts. */
export function isTextTarget(t: EventTarget | null): boolean {
  if (!(t instanceof Element)) return false;
  return !!t.closest('input, textarea, select, [contenteditable="true"], .cm-editor');
}
