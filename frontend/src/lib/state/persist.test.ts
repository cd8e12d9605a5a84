import { describe, expect, it } from 'vitest';
import {
  cleanSettings,
  hasUnsavedEdits,
  loadWork,
  mayReplaceLatest,
  parseWork,
  saveWork,
  shareOpening,
  WORK_KEY,
  type SavedWork,
} from './persist';
import { Keeper } from './keeper.svelte';

class MapStorage {
  map = new Map<string, string>();
  full = false;
  getItem(k: string) {
    return this.map.get(k) ?? null;
  }
  setItem(k: string, v: string) {
    if (this.full) throw new DOMException('quota', 'QuotaExceededError');
    this.map.set(k, v);
  }
}

const work = (over: Partial<SavedWork> = {}): SavedWork => ({
  code: 'print(1)\n',
  settings: { enable_x64: true, timeout_s: 20 },
  example: { id: 'vmap', title: 'vmap' },
  origin: 'print(0)\n',
  savedAt: 5,
  ...over,
});

describe('persist', () => {
  it('round-trips the work through storage', () => {
    const s = new MapStorage();
    expect(saveWork(s, work())).toBe(true);
    expect(loadWork(s)).toEqual(work());
  });

  it('reads nothing from empty, garbled or foreign entries', () => {
    const s = new MapStorage();
    expect(loadWork(s)).toBeNull();
    s.map.set(WORK_KEY, '{not json');
    expect(loadWork(s)).toBeNull();
    s.map.set(WORK_KEY, JSON.stringify({ code: 42 }));
    expect(loadWork(s)).toBeNull();
    expect(loadWork(null)).toBeNull();
  });

  it('keeps only known settings of the right type', () => {
    expect(
      cleanSettings({ enable_x64: 'yes', timeout_s: 12, compile: false, evil: 1, max_cards: NaN }),
    ).toEqual({ timeout_s: 12, compile: false });
    const parsed = parseWork(JSON.stringify({ code: 'x', settings: null, example: { id: '' } }));
    expect(parsed).toEqual({ code: 'x', settings: {}, example: null, origin: 'x', savedAt: 0 });
  });

  it('says when the work could not be kept', () => {
    const s = new MapStorage();
    s.full = true;
    expect(saveWork(s, work())).toBe(false);
    expect(saveWork(new MapStorage(), work({ code: 'x'.repeat(2 << 20) }))).toBe(false);
  });

  it('asks before a share replaces unsaved edits, and only then', () => {
    expect(hasUnsavedEdits(work())).toBe(true);
    expect(hasUnsavedEdits(work({ origin: 'print(1)\n' }))).toBe(false);
    expect(hasUnsavedEdits(work({ code: '  \n' }))).toBe(false);
    expect(shareOpening(work(), 'other()')).toBe('ask');
    expect(shareOpening(work(), 'print(1)\n')).toBe('open');
    expect(shareOpening(work({ origin: 'print(1)\n' }), 'other()')).toBe('open');
    expect(shareOpening(null, 'other()')).toBe('open');
  });
});

describe('work kept per tab and as the browser latest', () => {
  const settings = {
    enable_x64: false,
    timeout_s: 10,
    compile: true,
    max_cards: 32,
    loop_iterations: 64,
  };

  it('a reload brings back the tab its own work; a new tab opens the latest', () => {
    const shared = new MapStorage();
    const tabA = new Keeper(shared, new MapStorage());
    tabA.origin = 'start\n';
    tabA.schedule('mine\n', settings, true);
    // A second tab opens with A's work, and opens a share (no edits of its own) over it.
    const tabBStore = new MapStorage();
    const tabB = new Keeper(shared, tabBStore);
    expect(tabB.load()?.code).toBe('mine\n');
    tabB.origin = 'shared()\n';
    tabB.schedule('shared()\n', settings, true);
    expect(new Keeper(shared, tabBStore).load()?.code).toBe('shared()\n'); // B reloaded
    expect(new Keeper(shared, new MapStorage()).load()?.code).toBe('mine\n'); // a new tab
    expect(tabA.storable && tabB.storable).toBe(true);
    // B's own edits are work of their own: they become the latest.
    tabB.schedule('shared() + edit\n', settings, true);
    expect(new Keeper(shared, new MapStorage()).load()?.code).toBe('shared() + edit\n');
  });

  it('unsaved edits give way only to other edits or to the same code', () => {
    const edited = work();
    expect(mayReplaceLatest(edited, work({ code: 'x', origin: 'x' }))).toBe(false);
    expect(mayReplaceLatest(edited, work({ code: 'y' }))).toBe(true);
    expect(mayReplaceLatest(edited, work({ origin: 'print(1)\n' }))).toBe(true); // shared now
    expect(mayReplaceLatest(work({ origin: 'print(1)\n' }), work({ code: 'x', origin: 'x' }))).toBe(
      true,
    );
    expect(mayReplaceLatest(null, work({ code: 'x', origin: 'x' }))).toBe(true);
  });
});
