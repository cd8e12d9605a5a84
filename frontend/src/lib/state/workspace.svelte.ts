/**
 * The page's root state object: owns the connection, the session, selection, player, graph and
 * UI state, and wires them together (messages → session, new cards → player and graph, share
 * links in and out). Components receive it and stay thin; tests drive it through
 * `window.__didax` (see devhook.ts).
 */
import { Player } from '../player/player.svelte';
import { Connection } from '../protocol/socket.svelte';
import type { TraceCard } from '../protocol/types';
import { createShare, getExample, listExamples, loadShare, type ExampleInfo } from '../share/api';
import { codeLink, isEmbedPath, readLocation, serverLink, type ViewState } from '../share/link';
import { CardView } from './cardview.svelte';
import { GraphView } from './graphview.svelte';
import { Selection } from './selection.svelte';
import { DEFAULT_SETTINGS, Session } from './session.svelte';
import { Ui } from './ui.svelte';

const DEFAULT_CODE = `import jax
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

  examples = $state.raw<ExampleInfo[]>([]);
  examplesError = $state<string | null>(null);
  /** Bumped whenever code is replaced from outside the editor (example, link, test hook). */
  codeEpoch = $state(0);
  lastShareLink = $state<string | null>(null);
  /** The page is the embed view (`/embed/<id>`): editor, graph and player only. */
  readonly embed = typeof location !== 'undefined' && isEmbedPath(location.pathname);
  /** View state from an opened link, applied once the run it triggers has finished. */
  #pendingView: ViewState | null = null;
  #autoRun = false;

  constructor(url = Connection.defaultUrl()) {
    this.conn = new Connection(url);
    this.session = new Session(this.conn);
    this.view = new CardView(this.session, this.selection, this.player);
    this.session.code = DEFAULT_CODE;
    this.conn.onMessage = (env) => this.session.handle(env);
    this.conn.onDrop = () => this.session.connectionLost();
    this.conn.onOpen = () => {
      if (this.#autoRun) {
        this.#autoRun = false;
        this.run();
      }
    };
    this.session.onCard = (card) => {
      if (this.session.cards.length === 1) this.selectCard(0);
      void card;
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
    this.conn.connect();
    void this.loadExamples();
  }

  setCode(code: string) {
    this.session.code = code;
    this.codeEpoch += 1;
  }

  run() {
    this.selection.cardIndex = 0;
    this.selection.reset();
    this.player.load(0);
    this.graph.show(null);
    this.session.run();
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
      this.setCode(ex.code);
      this.ui.say(`Loaded example: ${ex.title}`);
      if (run && this.conn.state === 'open') this.run();
    } catch (err) {
      this.ui.say(`Could not load example: ${err instanceof Error ? err.message : err}`);
    }
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
    try {
      await navigator.clipboard.writeText(link);
      this.ui.say(how);
    } catch {
      this.ui.say(`${how.replace('copied', 'ready')} (clipboard blocked): ${link}`, 10000);
    }
    return link;
  }

  async #openLocation() {
    const { pathname, search, hash } = location;
    const shared = pathname.startsWith('/s/') || isEmbedPath(pathname);
    if (!shared && !search.includes('s=') && !hash.includes('code=')) return;
    try {
      const target = await readLocation(pathname, search, hash);
      let view: ViewState = {};
      if (target.shareId) {
        const got = await loadShare(target.shareId);
        this.setCode(got.code);
        this.session.settings = { ...DEFAULT_SETTINGS, ...got.settings };
        for (const k of ['card', 'step', 'stage'] as const)
          if (got.view?.[k] !== null && got.view?.[k] !== undefined)
            Object.assign(view, { [k]: got.view[k] });
      } else if (target.code !== null) {
        this.setCode(target.code);
      } else return;
      // The link's fragment, when it has a view, wins over the stored one.
      this.#pendingView = { ...view, ...target.view };
      this.#autoRun = true;
    } catch (err) {
      this.ui.say(`Could not open the shared link: ${err instanceof Error ? err.message : err}`);
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
