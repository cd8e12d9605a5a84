/**
 * The person's work, kept per browser in localStorage: the editor's code, the run settings, the
 * example it came from, and its origin (the code as last loaded from outside: the starter
 * program, an example, a share link; or as last shared). Code that differs from its origin is
 * unsaved work, which a share link may not overwrite without asking.
 *
 * Two slots: this tab's (sessionStorage, so a reload always brings back the tab's own work, whatever
 * other tabs did meanwhile) and the browser's latest (localStorage, what a new tab opens with).
 * The latest slot's unsaved edits are never replaced by a program that has none of its own (an
 * opened share or example in another tab), so they stay for the next visit.
 *
 * Pure apart from the Storage passed in (tests use a Map-backed one); reading is defensive, as
 * another version of the page or the person may have left anything under the key.
 */
import type { FullRunSettings } from '../protocol/types';

export const WORK_KEY = 'didax.workspace.v1';
/** Past this the work is not written (localStorage is about 5 MB per origin). */
const MAX_SAVED_CHARS = 1 << 20;

export interface ExampleRef {
  id: string;
  title: string;
}

export interface SavedWork {
  code: string;
  settings: Partial<FullRunSettings>;
  example: ExampleRef | null;
  /** The code as last loaded from outside or shared; `code !== origin` means unsaved edits. */
  origin: string;
  savedAt: number;
}

export type StorageLike = Pick<Storage, 'getItem' | 'setItem'>;

const SETTING_TYPES: Record<keyof FullRunSettings, 'boolean' | 'number'> = {
  enable_x64: 'boolean',
  timeout_s: 'number',
  compile: 'boolean',
  max_cards: 'number',
  loop_iterations: 'number',
};

/** Only known settings of the right type survive (a stale or edited entry cannot break runs). */
export function cleanSettings(x: unknown): Partial<FullRunSettings> {
  const out: Record<string, unknown> = {};
  if (!x || typeof x !== 'object') return out;
  for (const [key, type] of Object.entries(SETTING_TYPES)) {
    const v = (x as Record<string, unknown>)[key];
    if (typeof v === type && (type !== 'number' || Number.isFinite(v))) out[key] = v;
  }
  return out as Partial<FullRunSettings>;
}

function cleanExample(x: unknown): ExampleRef | null {
  if (!x || typeof x !== 'object') return null;
  const { id, title } = x as Record<string, unknown>;
  return typeof id === 'string' && id
    ? { id, title: typeof title === 'string' ? title : id }
    : null;
}

export function parseWork(raw: string | null): SavedWork | null {
  if (!raw) return null;
  let o: unknown;
  try {
    o = JSON.parse(raw);
  } catch {
    return null;
  }
  if (!o || typeof o !== 'object') return null;
  const r = o as Record<string, unknown>;
  if (typeof r.code !== 'string') return null;
  return {
    code: r.code,
    settings: cleanSettings(r.settings),
    example: cleanExample(r.example),
    origin: typeof r.origin === 'string' ? r.origin : r.code,
    savedAt: typeof r.savedAt === 'number' ? r.savedAt : 0,
  };
}

export function loadWork(storage: StorageLike | null): SavedWork | null {
  try {
    return parseWork(storage?.getItem(WORK_KEY) ?? null);
  } catch {
    return null; // storage disabled (some private modes throw on access)
  }
}

/** Write the work; false when it could not be kept (no storage, quota, too large). */
export function saveWork(storage: StorageLike | null, work: SavedWork): boolean {
  const text = JSON.stringify(work);
  if (!storage || text.length > MAX_SAVED_CHARS) return false;
  try {
    storage.setItem(WORK_KEY, text);
    return true;
  } catch {
    return false;
  }
}

/** Edits that exist nowhere else: not empty, and not what was last loaded or shared. */
export function hasUnsavedEdits(work: Pick<SavedWork, 'code' | 'origin'> | null): boolean {
  return !!work && work.code.trim() !== '' && work.code !== work.origin;
}

/** May `work` take the browser's latest slot from `stored`? Not unsaved edits for unedited code. */
export function mayReplaceLatest(stored: SavedWork | null, work: SavedWork): boolean {
  return !hasUnsavedEdits(stored) || hasUnsavedEdits(work) || stored!.code === work.code;
}

/** Opening a shared program: replace the editor at once, or ask first. */
export function shareOpening(
  work: Pick<SavedWork, 'code' | 'origin'> | null,
  sharedCode: string,
): 'open' | 'ask' {
  return hasUnsavedEdits(work) && work!.code !== sharedCode ? 'ask' : 'open';
}

/** The browser's localStorage, or null where it is missing or blocked. */
export function browserStorage(): StorageLike | null {
  try {
    return typeof localStorage !== 'undefined' ? localStorage : null;
  } catch {
    return null;
  }
}

/** This tab's sessionStorage (kept across reloads of the tab), or null where it is blocked. */
export function tabStorage(): StorageLike | null {
  try {
    return typeof sessionStorage !== 'undefined' ? sessionStorage : null;
  } catch {
    return null;
  }
}
