/**
 * Page object for the playground: user-level actions and the locators specs assert on. The
 * editor is filled through the page's `window.__didax.setCode` hook (exact, and immune to
 * auto-indent), and locators use roles first, then data-testid — never CSS classes.
 */
import { expect, test, type Locator, type Page } from '@playwright/test';

export class PlaygroundPage {
  readonly run: Locator;
  readonly connection: Locator;
  readonly status: Locator;
  readonly cards: Locator;
  readonly graph: Locator;
  readonly graphNodes: Locator;
  /** Every box drawn in the graph: nodes and groups (expanded or collapsed). */
  readonly graphBoxes: Locator;
  readonly graphGroups: Locator;
  /** Equation leaves only (inputs, outputs and groups excluded). */
  readonly eqnNodes: Locator;
  readonly player: Locator;
  readonly jaxprEqns: Locator;
  readonly editorLines: Locator;

  constructor(readonly page: Page) {
    this.run = page.getByTestId('run');
    this.connection = page.getByTestId('connection');
    this.status = page.getByTestId('run-status');
    this.cards = page.getByTestId('card');
    this.graph = page.getByTestId('graph');
    this.graphNodes = page.getByTestId('graph-node');
    this.graphBoxes = page.locator('[data-testid="graph-node"], [data-testid="graph-group"]');
    this.graphGroups = page.getByTestId('graph-group');
    this.eqnNodes = page.locator('[data-testid="graph-node"][data-kind="eqn"]');
    this.player = page.getByTestId('player');
    this.jaxprEqns = page.getByTestId('jaxpr-eqn');
    this.editorLines = page.locator('[data-testid="editor"] .cm-line');
  }

  async open(path = '/') {
    await this.page.goto(path);
    await this.connected();
  }

  async connected() {
    await expect(this.connection).toHaveAttribute('data-state', 'open');
  }

  /**
   * Skip (with the server's own reason) when the kernel's engine reports that it lacks what a
   * spec needs: `available` (didax importable) or `viz` (trace-card recording). The engine is
   * built concurrently; these specs start running by themselves once it reports the feature.
   */
  async requireEngine(feature: 'available' | 'viz') {
    const read = () =>
      this.page.evaluate(() => (window.__didax as any)?.workspace?.conn?.welcome?.engine ?? null);
    let engine = await read();
    if (!engine) {
      // A fresh server welcomes before its first kernel is ready (engine unknown): wait for a
      // warm kernel, then reconnect to be told what the engine can do.
      await expect
        .poll(async () => (await (await this.page.request.get('/healthz')).json()).pool_ready, {
          timeout: 90_000,
        })
        .toBeGreaterThan(0);
      await this.page.reload();
      await this.connected();
      engine = await read();
    }
    test.skip(
      !engine || !engine[feature],
      `engine reports ${feature}=false: ${engine?.detail ?? 'no engine info in welcome'}`,
    );
  }

  async setCode(code: string) {
    await this.page.evaluate((c) => window.__didax!.setCode(c), code);
  }

  async code(): Promise<string> {
    return this.page.evaluate(() => window.__didax!.getCode());
  }

  /** Run and wait for the run to finish in any final state; returns that state. */
  async runAndWait(timeout = 45_000): Promise<string> {
    await expect(this.run).toBeEnabled();
    await this.run.click();
    await expect(this.status).toHaveAttribute('data-state', /^(done|error|timeout|cancelled)$/, {
      timeout,
    });
    return (await this.status.getAttribute('data-state')) ?? '';
  }

  async graphReady() {
    await expect(this.graph).toHaveAttribute('data-status', 'ready');
  }

  async step(): Promise<void> {
    await this.page.getByTestId('player-forward').click();
  }

  /** data-state of every drawn equation node, in DOM order. */
  async nodeStates(): Promise<string[]> {
    return this.eqnNodes.evaluateAll((els) => els.map((e) => e.getAttribute('data-state') ?? ''));
  }

  /** Expand every group and wait for the layout; equation leaves + call groups = all eqns. */
  async expandAll() {
    await this.page.getByTestId('graph-expand-all').click();
    await expect(this.graph).toHaveAttribute('data-status', 'ready');
    await expect(
      this.page.locator('[data-testid="graph-group"][data-expanded="false"]'),
    ).toHaveCount(0);
  }

  /**
   * On-screen size (px) of every graph label inside the viewport: its font size times the
   * zoom it is drawn at (the text's screen transform), i.e. the height of its letters' em box,
   * which a bounding box (ascent + descent, ~1.2 em) would overstate.
   */
  async graphLabels(): Promise<{ heights: number[]; texts: string[] }> {
    return this.page.evaluate(() => {
      const view = document.querySelector('[data-focus-target="graph"]')!.getBoundingClientRect();
      const heights: number[] = [];
      const texts: string[] = [];
      for (const t of document.querySelectorAll<SVGTextElement>('[data-testid="graph-svg"] text')) {
        const r = t.getBoundingClientRect();
        const inside =
          r.right > view.left && r.left < view.right && r.bottom > view.top && r.top < view.bottom;
        if (!inside || !t.textContent?.trim()) continue;
        const m = t.getScreenCTM()!;
        heights.push(parseFloat(getComputedStyle(t).fontSize) * Math.hypot(m.b, m.d));
        texts.push(t.textContent);
      }
      return { heights, texts };
    });
  }

  /** Equations drawn: leaves plus groups that are one equation (pjit, cond, scan…). */
  async drawnEqns(): Promise<number> {
    return this.page
      .locator(
        '[data-testid="graph-node"][data-kind="eqn"], [data-testid="graph-group"][data-kind="call"]',
      )
      .count();
  }
}

declare global {
  interface Window {
    __didax?: {
      setCode(code: string): void;
      getCode(): string;
      run(): void;
      selectCard(i: number): void;
      useManualClock(): void;
      advance(ms: number): void;
      graphTimings(): any;
      layoutWarmMs(): number | null;
      playerStats(): any;
      resetPlayerStats(): void;
      heatmapsDrawn(): number;
      workspace: any;
    };
  }
}
