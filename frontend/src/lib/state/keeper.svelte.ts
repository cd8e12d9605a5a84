/**
 * Keeps the person's work across reloads (persist.ts): the editor's code, the run settings, the
 * example it came from and its origin, saved shortly after every change. Also holds what the
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
  saveWork,
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
  #last: SavedWork | null = null;

  constructor(private storage: StorageLike | null = browserStorage()) {}

  /** What was saved by an earlier visit, if anything. */
  load(): SavedWork | null {
    this.#last = loadWork(this.storage);
    return this.#last;
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
      this.storable = saveWork(this.storage, work);
      this.#last = work;
    };
    if (now) write();
    else this.#timer = setTimeout(write, SAVE_DELAY_MS);
  }

  flush(code: string, settings: FullRunSettings) {
    if (this.#timer) this.schedule(code, settings, true);
  }
}
