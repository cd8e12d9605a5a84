/**
 * Gradient flow as the page animates it (issue 11), on synthetic protocol-v2 cards with real
 * numbers (frontend/src/lib/testing/flowCards.ts) replayed by the mock kernel: contributions
 * summed at a fan-out, arrowheads in the direction of the cotangent, broadcast reductions,
 * indexing landings with heatmaps, tangents in forward mode, loop iterations, compositions.
 * Driven with the player's buttons and the mouse; DIDAX_SHOTS=1 saves screenshots.
 */
import type { Page } from '@playwright/test';
import {
  broadcastCard,
  compositionCard,
  fanOutCard,
  fanOutGrad,
  indexingCard,
  jvpCard,
  scanCard,
} from '../../../frontend/src/lib/testing/flowCards';
import { expect, test } from '../../support/fixtures';
import { MockKernel } from '../../support/mockKernel';
import type { PlaygroundPage } from '../../support/PlaygroundPage';

async function open(pg: PlaygroundPage, page: Page, cards: any[], updates?: any[]) {
  await MockKernel.install(page, { run: () => ({ cards, updates }) });
  await pg.open();
  await page.evaluate(() => window.__didax!.useManualClock());
  expect(await pg.runAndWait()).toBe('done');
  await pg.graphReady();
}

/** Step forward until the player shows step k (0-based). */
async function stepTo(pg: PlaygroundPage, k: number) {
  for (let s = Number(await pg.player.getAttribute('data-step')); s < k; s++) await pg.step();
  await expect(pg.player).toHaveAttribute('data-step', String(k));
}

async function shot(page: Page, name: string) {
  if (process.env.DIDAX_SHOTS === '1')
    await page.screenshot({ path: `test-results/shots/${name}.png` });
}

const backStart = (card: any) => card.timeline.findIndex((s: any) => s.phase === 'backward');

test('a fan-out receives its first contribution, then the sum', async ({
  playground: pg,
  page,
}) => {
  const card = fanOutCard();
  await open(pg, page, [card]);
  const x = page.locator('[data-testid="graph-node"][data-kind="input"][data-name="x"]');
  await expect(x).toHaveCount(1);
  const back = backStart(card);
  await stepTo(pg, back - 1);
  await expect(page.getByTestId('player-label')).toContainText('FORWARD');
  await expect(x).not.toHaveAttribute('data-cotangent', /.*/);
  await stepTo(pg, back);
  await expect(page.getByTestId('player-label')).toContainText('BACKWARD');
  await expect(x).toHaveAttribute('data-cotangent', '');
  // First contribution (through integer_pow): a partial sum, labelled as one.
  await stepTo(pg, back + 2);
  await expect(x).toHaveAttribute('data-cotangent', '2.992');
  const xid = await x.getAttribute('data-node-id');
  const badge = page.locator(`[data-testid="value-badge"][data-node-id="${xid}"]`);
  await expect(badge).toHaveAttribute('data-partial', 'true');
  await expect(badge).toContainText('∇ 2.992 (1 of 2)');
  await expect(page.getByTestId('partial-sum').first()).toContainText('a partial sum');
  await page.evaluate(() => window.__didax!.advance(300)); // mid-motion
  await shot(page, 'fanout-first-contribution');
  // Second contribution (through sin): the addition, then the total = jax.grad.
  await stepTo(pg, back + 3);
  await expect(badge).toContainText('∇ 2.992 + 0.1592 = 3.152 (2 of 2)');
  await expect(badge).toHaveAttribute('data-partial', 'false');
  const total = Number(await x.getAttribute('data-cotangent'));
  expect(total).toBeCloseTo(fanOutGrad(), 3);
  await page.evaluate(() => window.__didax!.advance(1000));
  await shot(page, 'fanout-sum');
  await expect(page.getByTestId('partial-sum').first()).toContainText('the total');
});

test('backward arrowheads are small and point at the operand receiving the cotangent', async ({
  playground: pg,
  page,
}) => {
  const card = fanOutCard();
  await open(pg, page, [card]);
  await stepTo(pg, backStart(card) + 3);
  const marks = page.locator('[data-testid="flow-mark"][data-phase="backward"]');
  await expect(marks).toHaveCount(4); // mul→sin, mul→pow, pow→x, sin→x
  await expect(page.locator('[data-testid="flow-mark"][data-now="true"]')).toHaveCount(1);
  const arrow = page.locator(
    '[data-testid="flow-mark"][data-var-id="v0"][data-eqn-id="e0"] [data-testid="flow-arrow"]',
  );
  const tip = await arrow.evaluate((el) => {
    const m = /^M([-\d.]+),([-\d.]+)/.exec(el.getAttribute('d')!)!;
    const b = (el as SVGGraphicsElement).getBBox();
    return { x: Number(m[1]), y: Number(m[2]), w: b.width, h: b.height };
  });
  const rect = await page
    .locator('[data-testid="graph-node"][data-name="x"] > rect')
    .first()
    .evaluate((el) => {
      const b = (el as SVGGraphicsElement).getBBox();
      return { x: b.x, y: b.y, width: b.width, height: b.height };
    });
  // The tip touches x's box (the cotangent arrives there), not the sin equation.
  expect(tip.x).toBeGreaterThanOrEqual(rect.x - 2);
  expect(tip.x).toBeLessThanOrEqual(rect.x + rect.width + 2);
  expect(tip.y).toBeGreaterThanOrEqual(rect.y - 2);
  expect(tip.y).toBeLessThanOrEqual(rect.y + rect.height + 2);
  expect(Math.max(tip.w, tip.h)).toBeLessThan(12);
});

test('broadcasting shows the reduction, indexing where contributions land', async ({
  playground: pg,
  page,
}) => {
  const b = broadcastCard();
  const ix = indexingCard();
  await open(pg, page, [b, ix]);
  await stepTo(pg, b.timeline.length - 1);
  await expect(page.getByTestId('reduction')).toHaveText('Σ over axis 0: f32[4,3] → f32[3]');
  await expect(page.locator('[data-testid="flow-chip"]')).toContainText('Σ over axis 0');
  await page.evaluate(() => window.__didax!.advance(1000));
  await shot(page, 'broadcast-reduction');
  await page.getByTestId('card').nth(1).click();
  await pg.graphReady();
  const back = backStart(ix);
  await stepTo(pg, back + 2);
  await expect(page.getByTestId('landing')).toHaveText('lands in element 5 of f32[8]');
  await expect(page.getByTestId('flow-landing')).toHaveCount(1);
  await expect(page.locator('[data-testid="values-panel"] [data-testid="heatmap"]')).toHaveCount(1);
  const x = page.locator('[data-testid="graph-node"][data-name="x"]');
  await expect(x).toHaveAttribute('data-cotangent', 'μ 0.125');
  await stepTo(pg, ix.timeline.length - 1);
  await expect(x).toHaveAttribute('data-cotangent', 'μ 0.5');
  await page.evaluate(() => window.__didax!.advance(1000));
  await shot(page, 'indexing-landing');
  // Heatmaps are drawn once per value, not per frame.
  const drawn = await page.evaluate(() => window.__didax!.heatmapsDrawn());
  await page.getByTestId('player-back').click();
  await pg.step();
  await page.evaluate(() => window.__didax!.advance(1000));
  expect(await page.evaluate(() => window.__didax!.heatmapsDrawn())).toBe(drawn);
});

test('forward mode animates tangents beside primals', async ({ playground: pg, page }) => {
  const card = jvpCard();
  await open(pg, page, [card]);
  await stepTo(pg, 0);
  const xid = await page
    .locator('[data-testid="graph-node"][data-name="x"]')
    .getAttribute('data-node-id');
  await expect(page.locator(`[data-testid="value-badge"][data-node-id="${xid}"]`)).toHaveText(
    '1.5, ẋ = 1',
  );
  await stepTo(pg, card.timeline.length - 1);
  await page.locator('[data-testid="graph-node"][data-kind="eqn"]').last().hover();
  const tip = page.getByTestId('graph-tooltip');
  await expect(tip.locator('[data-tone="tangent"]')).toContainText('3.151644');
  await expect(tip.locator('[data-tone="value"]')).toContainText('2.244364');
  await shot(page, 'jvp-tangents');
});

test('a scan card scrubs iterations, forward and then in reverse', async ({
  playground: pg,
  page,
}) => {
  const card = scanCard(4, 6);
  await open(pg, page, [card]);
  const loop = page.getByTestId('loop-panel');
  await expect(page.getByTestId('loop-notice')).toHaveText('first 4 of 6 iterations recorded');
  await expect(page.getByTestId('card-notice')).toContainText('first 4 of 6');
  await page.getByTestId('loop-scrub').fill('2');
  await expect(loop).toHaveAttribute('data-iteration', '2');
  await expect(loop).toHaveAttribute('data-phase', 'forward');
  await expect(page.getByTestId('loop-iteration')).toContainText('iteration 2 of 0…5');
  await expect(loop.getByTestId('value-scalar').first()).toHaveText('2.5');
  await shot(page, 'scan-iteration');
  const seen: string[] = [];
  await stepTo(pg, backStart(card));
  for (let k = backStart(card) + 1; k < card.timeline.length; k++) {
    await pg.step();
    seen.push((await loop.getAttribute('data-iteration'))!);
  }
  expect(seen).toEqual(['5', '4', '3', '2']);
  await expect(loop).toHaveAttribute('data-phase', 'backward');
});

test('a composition is titled as such and counts its calls', async ({ playground: pg, page }) => {
  const card = { ...compositionCard(), call_count: 1 };
  await open(pg, page, [card], [{ card_id: card.card_id, call_count: 5 }]);
  await expect(page.getByTestId('card-title')).toHaveText('jit(grad(f))');
  await expect(page.getByTestId('call-count')).toHaveText('×5');
  await page.getByTestId('player-end').click();
  await expect(page.getByTestId('player-label')).toContainText('BACKWARD');
});

test('reduced motion lands each contribution at once', async ({ playground: pg, page }) => {
  await page.emulateMedia({ reducedMotion: 'reduce' });
  const card = fanOutCard();
  await open(pg, page, [card]);
  await stepTo(pg, backStart(card) + 1);
  await expect(page.locator('[data-testid="flow-chip"]')).toHaveCount(2);
  await expect(page.locator('[data-testid="flow-chip"] circle')).toHaveCount(0);
});
