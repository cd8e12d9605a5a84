/**
 * Keeps the person's work across reloads (persist.ts): the editor's code, the run settings, the
 * example it came from and its origin, saved shortly after every change, for this tab and as the
 * browser's latest work. Also holds what the
 * page asks or tells about a shared link: a share that would replace unsaved edits waits here
 * for the person's answer, and a share that failed to open is described here.
 */
import type { FullRunSettings } from '../protocol/types';
import type { ShareFailure } from '../share/errors';
import type { ViewState } from '../share/link';
import {
  browserStorage,
  hasUnsavedEdits,
  loadWork,
  mayReplaceLatest,
  saveWork,
  tabStorage,
  type ExampleRef,
  type SavedWork,
  type StorageLike,
} from './persist';

const SAVE_DELAY_MS = 300;

/** A shared program waiting for "open it / keep my code". */
export interface PendingShare {
  code: string;
  settings: Partial<FullRunSettings>;
  view: ViewState;
}

export class Keeper {
  /** The example the code came from (kept until another example, share or starter replaces it). */
  example = $state.raw<ExampleRef | null>(null);
  /** The code as last loaded from outside or shared: edits beyond it are unsaved work. */
  origin = $state('');
  pendingShare = $state.raw<PendingShare | null>(null);
  shareFailure = $state.raw<ShareFailure | null>(null);
  /** False when the browser refused to store the work (the page says so once). */
  storable = $state(true);

  #timer: ReturnType<typeof setTimeout> | null = null;

  constructor(
    /** The browser's latest work (what a new tab opens with). */
    private storage: StorageLike | null = browserStorage(),
    /** This tab's own work (what a reload of the tab brings back). */
    private tab: StorageLike | null = tabStorage(),
  ) {}

  /** What this tab saved before a reload, else the browser's latest work, if anything. */
  load(): SavedWork | null {
    return loadWork(this.tab) ?? loadWork(this.storage);
  }

  /** Unsaved edits in `code` (compared with the origin). */
  edited(code: string): boolean {
    return hasUnsavedEdits({ code, origin: this.origin });
  }

  /** Save soon (coalescing keystrokes); `now` writes at once (page hide). */
  schedule(code: string, settings: FullRunSettings, now = false) {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    const work: SavedWork = {
      code,
      settings: { ...settings },
      example: this.example,
      origin: this.origin,
      savedAt: Date.now(),
    };
    const write = () => {
      this.#timer = null;
      const kept = saveWork(this.tab, work);
      const latest = loadWork(this.storage);
      this.storable =
        (mayReplaceLatest(latest, work) ? saveWork(this.storage, work) : latest !== null) || kept;
    };
    if (now) write();
    else this.#timer = setTimeout(write, SAVE_DELAY_MS);
  }

  flush(code: string, settings: FullRunSettings) {
    if (this.#timer) this.schedule(code, settings, true);
  }
}
