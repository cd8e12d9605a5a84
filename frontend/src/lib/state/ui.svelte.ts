/**
 * Page-level view state: theme, which tab is open in each tabbed area, the narrow (phone)
 * layout, reduced motion, dialogs and the transient notice line. Theme choice persists in
 * localStorage; the rest is per visit.
 */
export type Theme = 'dark' | 'light';
export type BottomTab = 'jaxpr' | 'stages';
export type NarrowTab = 'code' | 'graph' | 'jaxpr' | 'stages' | 'output';

const THEME_KEY = 'didax.theme';

function media(query: string): MediaQueryList | null {
  return typeof matchMedia === 'function' ? matchMedia(query) : null;
}

export class Ui {
  theme = $state<Theme>('dark');
  bottomTab = $state<BottomTab>('jaxpr');
  stageIndex = $state(0);
  narrowTab = $state<NarrowTab>('code');
  narrow = $state(false);
  reducedMotion = $state(false);
  helpOpen = $state(false);
  /** The graph legend (opened on the first visit, then as the user leaves it). */
  legendOpen = $state(false);
  /** Share of the right column's height the graph gets (the listings take the rest). */
  graphShare = $state(0.7);
  notice = $state<string | null>(null);
  #noticeTimer: ReturnType<typeof setTimeout> | null = null;

  init() {
    const saved = typeof localStorage !== 'undefined' ? localStorage.getItem(THEME_KEY) : null;
    if (saved === 'dark' || saved === 'light') this.theme = saved;
    else if (media('(prefers-color-scheme: light)')?.matches) this.theme = 'light';
    const narrow = media('(max-width: 760px)');
    const motion = media('(prefers-reduced-motion: reduce)');
    this.narrow = narrow?.matches ?? false;
    this.reducedMotion = motion?.matches ?? false;
    narrow?.addEventListener('change', (e) => (this.narrow = e.matches));
    motion?.addEventListener('change', (e) => (this.reducedMotion = e.matches));
  }

  toggleTheme() {
    this.theme = this.theme === 'dark' ? 'light' : 'dark';
    try {
      localStorage.setItem(THEME_KEY, this.theme);
    } catch {
      // Private mode: the choice simply does not persist.
    }
  }

  say(text: string, ms = 4000) {
    this.notice = text;
    if (this.#noticeTimer) clearTimeout(this.#noticeTimer);
    this.#noticeTimer = setTimeout(() => (this.notice = null), ms);
  }
}
