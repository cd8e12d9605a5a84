import { describe, expect, it } from 'vitest';
import { chordLabel, matchKey, type KeyLike } from './keys';

const ev = (key: string, mods: Partial<KeyLike> = {}): KeyLike => ({
  key,
  ctrlKey: false,
  metaKey: false,
  altKey: false,
  shiftKey: false,
  ...mods,
});

describe('matchKey', () => {
  it('maps Mod to Ctrl elsewhere and Cmd on macOS', () => {
    expect(matchKey(ev('Enter', { ctrlKey: true }), 'Mod-Enter')).toBe(true);
    expect(matchKey(ev('Enter', { metaKey: true }), 'Mod-Enter')).toBe(false);
    expect(matchKey(ev('Enter', { metaKey: true }), 'Mod-Enter', true)).toBe(true);
  });

  it('requires exact modifiers', () => {
    expect(matchKey(ev('Enter', { ctrlKey: true, shiftKey: true }), 'Mod-Enter')).toBe(false);
    expect(matchKey(ev('Enter', { ctrlKey: true, shiftKey: true }), 'Mod-Shift-Enter')).toBe(true);
    expect(matchKey(ev('k', { altKey: true }), 'k')).toBe(false);
  });

  it('treats Shift as part of printable characters', () => {
    expect(matchKey(ev('?', { shiftKey: true }), '?')).toBe(true);
    expect(matchKey(ev('S', { ctrlKey: true, shiftKey: false }), 'Mod-s')).toBe(true);
  });

  it('handles a literal minus key', () => {
    expect(matchKey(ev('-'), '-')).toBe(true);
    expect(matchKey(ev('-', { ctrlKey: true }), 'Mod--')).toBe(true);
  });

  it('labels chords for people', () => {
    expect(chordLabel('Mod-Enter')).toBe('Ctrl+Enter');
    expect(chordLabel('Mod-Enter', true)).toBe('⌘+Enter');
    expect(chordLabel('Alt-ArrowRight')).toBe('Alt+→');
  });
});
