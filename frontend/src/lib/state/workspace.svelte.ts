/**
 * The page's root state object: owns the connection, the session, selection, player, graph and
 * UI state, and wires them together (messages → session, new cards → player and graph, share
 * links in and out, the work kept across reloads, line links from an older program's results
 * into the edited code). Components receive it and stay thin; tests drive it through
 * `window.__didax` (see devhook.ts).
 */
import { untrack } from 'svelte';
import { cachedLineMap } from '../linking/linemap';
import { FlowView } from '../player/flow.svelte';
import { Player } from '../player/player.svelte';
import { Connection } from '../protocol/socket.svelte';
import type { TraceCard } from '../protocol/types';
import { createShare, getExample, listExamples, loadShare, type ExampleInfo } from '../share/api';
import { describeShareFailure } from '../share/errors';
import { codeLink, isEmbedPath, readLocation, serverLink, type ViewState } from '../share/link';
import { CardView } from './cardview.svelte';
import { GraphView } from './graphview.svelte';
import { Keeper, type PendingShare } from './keeper.svelte';
import { cleanSettings, shareOpening, type ExampleRef } from './persist';
import type { Run } from './run.svelte';
import { Selection } from './selection.svelte';
import { DEFAULT_SETTINGS, Session } from './session.svelte';
import { Ui } from './ui.svelte';

export const DEFAULT_CODE = `import jax
import jax.numpy as jnp

def loss(w, x):
    y = jnp.tanh(w * x)
    return jnp.sum(y ** 2)

w = jnp.array([0.5, -1.0, 2.0])
x = jnp.array([1.0, 2.0, 3.0])
print(jax.grad(loss)(w, x))
`;

export class Workspace {
  readonly conn: Connection;
  readonly session: Session;
  readonly selection = new Selection();
  readonly player = new Player();
  readonly ui = new Ui();
  readonly graph = new GraphView(this.selection);
  readonly view: CardView;
  readonly keeper = new Keeper();
  readonly flow: FlowView;

  examples = $state.raw<ExampleInfo[]>([]);
  examplesError = $state<string | null>(null);
  /** Bumped whenever code is replaced from outside the editor (example, link, test hook). */
  codeEpoch = $state(0);
  lastShareLink = $state<string | null>(null);
  /** The page is the embed view (`/embed/<id>`): editor, graph and player only. */
  readonly embed = typeof location !== 'undefined' && isEmbedPath(location.pathname);
  /** An editor line to move the cursor to (a traceback frame was clicked); `n` re-triggers. */
  jump = $state.raw<{ line: number; n: number } | null>(null);
  /** View state from an opened link, applied once the run it triggers has finished. */
  #pendingView: ViewState | null = null;
  #autoRun = false;

  constructor(url = Connection.defaultUrl()) {
    this.conn = new Connection(url);
    this.session = new Session(this.conn);
    this.view = new CardView(this.session, this.selection, this.player);
    this.flow = new FlowView(this.view, this.graph);
    // Before any component mounts: the editor opens on the kept work (not an undoable swap).
    this.#restoreWork();
    this.conn.onMessage = (env) => this.session.handle(env);
    this.conn.onDrop = () => this.session.connectionLost();
    this.conn.onOpen = () => {
      if (this.#autoRun) {
        this.#autoRun = false;
        this.run();
      }
    };
    // The viewed run changed (a new run's first card, or the person picked an older run).
    this.session.onView = () => {
      this.selection.cardIndex = 0;
      this.selection.reset();
      if (this.session.cards.length) this.selectCard(0);
      else {
        this.player.load(0);
        this.graph.show(null);
      }
    };
    this.session.onFinished = () => this.#applyPendingView();
    // A pin from any pane (jaxpr row, stage row, search) reveals its node in the graph.
    this.selection.onPin = (f) => {
      if (f?.kind === 'group') this.graph.reveal(f.id);
      else if (f?.kind === 'eqn') {
        const node = this.graph.nodeOfEqn(f.id);
        if (node) this.graph.reveal(node);
      }
    };
  }

  async start() {
    this.ui.init();
    this.graph.warm();
    await this.#openLocation();
    this.#keepWork();
    this.conn.connect();
    void this.loadExamples();
  }

  /**
   * Replace the editor's code from outside (example, link, test hook). `origin` says where it
   * came from: code loaded from outside is saved work by definition; edits beyond it are not.
   */
  setCode(code: string, origin: { example?: ExampleRef | null } | null = null) {
    this.session.code = code;
    this.codeEpoch += 1;
    if (origin) {
      this.keeper.origin = code;
      if (origin.example !== undefined) this.keeper.example = origin.example;
    }
  }

  /** Run the editor's code; during a run this restarts (the old run is stopped and kept). */
  run() {
    this.session.run();
  }

  /** True when the viewed run's program is not the editor's any more. */
  get stale(): boolean {
    const r = this.session.viewed;
    return !!r && r.code !== this.session.code;
  }

  /** Editor line for a line of `run`'s program (null: that line was changed or deleted). */
  editorLine(line: number, run: Run | null = this.session.viewed): number | null {
    if (!run || run.code === this.session.code) return line;
    return cachedLineMap(run.code, this.session.code).toNew(line);
  }

  /**
   * How panes name a line of the viewed run's program (`where`: e.g. " in f"): its editor line,
   * re-mapped across edits, or that the line has changed since the run.
   */
  lineLabel(line: number, where = ''): string {
    const run = this.session.viewed;
    if (!run || run.code === this.session.code) return `line ${line}${where}`;
    const to = this.editorLine(line, run);
    if (to === null) return `line ${line}${where} when run ${run.seq} ran (changed since)`;
    return to === line
      ? `line ${line}${where}`
      : `line ${to}${where} (line ${line} in run ${run.seq})`;
  }

  /** Put the editor's cursor on an editor line (and pin it in every pane, if it is linked). */
  jumpTo(line: number) {
    this.selection.pinLine(this.runLine(line));
    this.jump = { line, n: (this.jump?.n ?? 0) + 1 };
  }

  /** Line of the viewed run's program for an editor line (null: new or changed since). */
  runLine(line: number): number | null {
    const run = this.session.viewed;
    if (!run || run.code === this.session.code) return line;
    return cachedLineMap(run.code, this.session.code).toOld(line);
  }

  selectCard(i: number) {
    const cards = this.session.cards;
    if (!cards.length) return;
    const index = Math.max(0, Math.min(i, cards.length - 1));
    this.selection.cardIndex = index;
    this.selection.reset();
    const card: TraceCard = cards[index];
    this.player.load(card.timeline.length);
    this.graph.show(card);
  }

  async loadExamples() {
    try {
      this.examples = await listExamples();
      this.examplesError = null;
    } catch (err) {
      this.examplesError = String(err instanceof Error ? err.message : err);
    }
  }

  async openExample(id: string, run = false) {
    try {
      const ex = await getExample(id);
      const edited = this.keeper.edited(this.session.code);
      this.setCode(ex.code, { example: { id: ex.id, title: ex.title } });
      this.ui.say(
        edited
          ? `Loaded example: ${ex.title} (Ctrl+Z in the editor brings your code back)`
          : `Loaded example: ${ex.title}`,
        edited ? 7000 : 4000,
      );
      if (run && this.conn.state === 'open') this.run();
    } catch (err) {
      this.ui.say(`Could not load example: ${err instanceof Error ? err.message : err}`);
    }
  }

  /** Put the selected example's code back (an undoable edit in the editor). */
  async restoreExample() {
    const ref = this.keeper.example;
    if (!ref) return;
    let code = this.keeper.origin;
    try {
      code = (await getExample(ref.id)).code;
    } catch {
      // Offline: the origin saved with the work is the example as it was loaded.
    }
    this.setCode(code, { example: ref });
    this.ui.say(`Restored the example “${ref.title}” (Ctrl+Z in the editor undoes this)`, 6000);
  }

  currentView(): ViewState {
    if (!this.session.cards.length) return {};
    const view: ViewState = { card: this.selection.cardIndex };
    if (this.player.step >= 0) view.step = this.player.step;
    const stage = this.view.card?.stages[this.ui.stageIndex];
    if (stage && this.ui.bottomTab === 'stages') view.stage = stage.name;
    return view;
  }

  /** Copy an iframe snippet showing this program, card and step (the embed view). */
  async copyEmbed(): Promise<string | null> {
    const view = this.currentView();
    try {
      const share = await createShare(
        this.session.code,
        $state.snapshot(this.session.settings),
        view,
      );
      const title = this.view.card?.title ?? 'Didax Playground';
      const src = `${location.origin}/embed/${share.id}`;
      const html = `<iframe src="${src}" title="${title.replace(/"/g, '&quot;')}" width="100%" height="520" loading="lazy" style="border:1px solid #ccc;border-radius:6px;resize:both;overflow:auto"></iframe>`;
      this.lastShareLink = src;
      try {
        await navigator.clipboard.writeText(html);
        this.ui.say('Embed code copied (an iframe of this program at this card and step)');
      } catch {
        this.ui.say(`Embed code (clipboard blocked): ${html}`, 12000);
      }
      return html;
    } catch (err) {
      this.ui.say(`Could not make an embed link: ${err instanceof Error ? err.message : err}`);
      return null;
    }
  }

  /** Server link when the store answers, a self-contained `#code=` link otherwise. */
  async share(): Promise<string> {
    const view = this.currentView();
    let link: string;
    let how: string;
    try {
      const share = await createShare(
        this.session.code,
        $state.snapshot(this.session.settings),
        view,
      );
      link = serverLink(location.origin, share.url, view);
      how = 'Share link copied';
    } catch {
      link = await codeLink(`${location.origin}/`, this.session.code, view);
      how = 'Share store unreachable — copied a self-contained link';
    }
    this.lastShareLink = link;
    this.keeper.origin = this.session.code; // the code now exists outside this browser
    try {
      await navigator.clipboard.writeText(link);
      this.ui.say(how);
    } catch {
      this.ui.say(`${how.replace('copied', 'ready')} (clipboard blocked): ${link}`, 10000);
    }
    return link;
  }

  #restoreWork() {
    const saved = this.embed ? null : this.keeper.load();
    if (!saved) {
      this.setCode(DEFAULT_CODE, { example: null });
      return;
    }
    this.session.settings = { ...DEFAULT_SETTINGS, ...saved.settings };
    this.setCode(saved.code);
    this.keeper.origin = saved.origin;
    this.keeper.example = saved.example;
  }

  /** Save the work shortly after every change, and at once when the page is hidden. */
  #keepWork() {
    if (this.embed) return; // an embed (iframe on another page) keeps nothing
    $effect.root(() => {
      $effect(() => {
        const code = this.session.code;
        const settings = $state.snapshot(this.session.settings);
        void this.keeper.example;
        void this.keeper.origin;
        untrack(() => this.keeper.schedule(code, settings));
      });
      $effect(() => {
        if (this.keeper.storable) return;
        untrack(() =>
          this.ui.say(
            'This browser does not let the page keep your code: copy it before you leave.',
            8000,
          ),
        );
      });
    });
    // A #code= link pasted into the address bar of an open page changes only the hash.
    addEventListener('hashchange', () => {
      if (location.hash.includes('code=')) void this.#openLocation();
    });
    addEventListener('pagehide', () =>
      this.keeper.flush(this.session.code, $state.snapshot(this.session.settings)),
    );
  }

  async #openLocation() {
    const { pathname, search, hash } = location;
    const shared = pathname.startsWith('/s/') || isEmbedPath(pathname);
    if (!shared && !search.includes('s=') && !hash.includes('code=')) return;
    try {
      const target = await readLocation(pathname, search, hash);
      let shared: PendingShare;
      if (target.shareId) {
        const got = await loadShare(target.shareId);
        const view: ViewState = {};
        for (const k of ['card', 'step', 'stage'] as const)
          if (got.view?.[k] !== null && got.view?.[k] !== undefined)
            Object.assign(view, { [k]: got.view[k] });
        // The link's fragment, when it has a view, wins over the stored one.
        shared = {
          code: got.code,
          settings: cleanSettings(got.settings),
          view: { ...view, ...target.view },
        };
      } else if (target.code !== null) {
        shared = { code: target.code, settings: {}, view: target.view };
      } else return;
      // An embed shows its program and never touches the person's kept work.
      const work = this.embed ? null : { code: this.session.code, origin: this.keeper.origin };
      if (shareOpening(work, shared.code) === 'ask') {
        this.keeper.pendingShare = shared;
        return;
      }
      this.#openShared(shared);
    } catch (err) {
      this.keeper.shareFailure = describeShareFailure(err);
    }
  }

  #openShared(shared: PendingShare) {
    this.setCode(shared.code, { example: null });
    this.session.settings = { ...DEFAULT_SETTINGS, ...shared.settings };
    this.#pendingView = shared.view;
    this.#leaveLink();
    if (this.conn.state === 'open') this.run();
    else this.#autoRun = true;
  }

  /** The person's answer about a shared program that would replace their unsaved code. */
  answerShare(open: boolean) {
    const shared = this.keeper.pendingShare;
    this.keeper.pendingShare = null;
    if (shared && open) this.#openShared(shared);
    else this.#leaveLink();
  }

  /** Close the "link could not be opened" message: the playground without the shared program. */
  dismissShareFailure() {
    this.keeper.shareFailure = null;
    this.#leaveLink();
  }

  /** The link has been handled: a reload shows the kept work, not the link again. */
  #leaveLink() {
    if (this.embed) return;
    if (location.pathname !== '/' || location.search || location.hash) {
      history.replaceState(history.state, '', '/');
    }
  }

  #applyPendingView() {
    const view = this.#pendingView;
    this.#pendingView = null;
    if (!view || view.card === undefined) return;
    this.selectCard(view.card);
    if (view.step !== undefined) this.player.seek(view.step);
    const stages = this.view.card?.stages ?? [];
    const at = view.stage ? stages.findIndex((s) => s.name === view.stage) : -1;
    if (at >= 0) {
      this.ui.stageIndex = at;
      this.ui.bottomTab = 'stages';
    }
  }
}
