import { syntheticCard } from '../../../frontend/src/lib/testing/synthetic';
import { expect, test } from '../../support/fixtures';
import { MockKernel, sample } from '../../support/mockKernel';

test('stepping lights nodes forward, then carries cotangents backward', async ({
  playground: pg,
  page,
}) => {
  const card = sample('server.trace_card.grad').msg.card;
  await MockKernel.install(page, { run: () => ({ cards: [card] }) });
  await pg.open();
  await pg.runAndWait();
  await pg.graphReady();
  expect(await pg.nodeStates()).toEqual(['idle', 'idle']);
  const seen: string[][] = [];
  for (let i = 0; i < card.timeline.length; i++) {
    await pg.step();
    await expect(pg.player).toHaveAttribute('data-step', String(i));
    seen.push(await pg.nodeStates());
  }
  const fwd = card.timeline.findIndex((s: any) => s.phase === 'backward');
  expect(seen[fwd - 1]).toEqual(['forward', 'forward']);
  expect(seen[seen.length - 1]).toEqual(['backward', 'backward']);
  // Order: no node goes backward before every node went forward.
  const firstBack = seen.findIndex((s) => s.includes('backward'));
  expect(firstBack).toBeGreaterThanOrEqual(fwd);
  await expect(page.getByTestId('value-badge').first()).toContainText('∇');
  // Stepping back undoes exactly one step.
  await page.getByTestId('player-back').click();
  expect(await pg.nodeStates()).toEqual(seen[seen.length - 2]);
});

test('play runs on the deterministic clock, and scrub/speed work', async ({
  playground: pg,
  page,
}) => {
  const card = syntheticCard({ eqns: 10 });
  await MockKernel.install(page, { run: () => ({ cards: [card] }) });
  await pg.open();
  await pg.runAndWait();
  await pg.graphReady();
  await page.evaluate(() => window.__didax!.useManualClock());
  await page.getByTestId('player-play').click();
  await expect(pg.player).toHaveAttribute('data-playing', 'true');
  await page.evaluate(() => window.__didax!.advance(1000)); // 2 steps per second at 1×
  await expect(pg.player).toHaveAttribute('data-step', '1');
  await page.getByTestId('player-speed').selectOption('4');
  await page.evaluate(() => window.__didax!.advance(2000));
  await expect(pg.player).toHaveAttribute('data-step', '17');
  await expect(pg.player).toHaveAttribute('data-phase', 'backward');
  await page.evaluate(() => window.__didax!.advance(10_000));
  await expect(pg.player).toHaveAttribute('data-step', String(card.timeline.length - 1));
  await expect(pg.player).toHaveAttribute('data-playing', 'false');
  await page.getByTestId('player-scrub').fill('5');
  await expect(pg.player).toHaveAttribute('data-phase', 'forward');
  expect((await pg.nodeStates()).filter((s) => s === 'forward')).toHaveLength(5);
});

test('non-finite cotangents get NaN badges', async ({ playground: pg, page }) => {
  const card = syntheticCard({ eqns: 4, nanAt: 3 });
  await MockKernel.install(page, { run: () => ({ cards: [card] }) });
  await pg.open();
  await pg.runAndWait();
  await pg.graphReady();
  await page.getByTestId('player-end').click();
  await expect(page.getByTestId('nonfinite-badge').first()).toContainText('NaN');
});

test('the current step pulses on the player clock; reduced motion turns pulses off', async ({
  playground: pg,
  page,
}) => {
  await MockKernel.install(page, { run: () => ({ cards: [syntheticCard({ eqns: 3 })] }) });
  await pg.open();
  await pg.runAndWait();
  await pg.graphReady();
  await page.evaluate(() => window.__didax!.useManualClock());
  await pg.step();
  await pg.step();
  const current = page.locator('[data-testid="graph-node"][data-current="true"] > rect');
  await expect(current).toHaveCount(1);
  // The pulse is the overlay's ring, driven by the step's progress: there while it moves, gone
  // when the step is at rest. The box itself has no CSS animation (a second clock).
  const pulse = page.getByTestId('step-pulse');
  await expect(pulse).toHaveCount(1);
  await page.evaluate(() => window.__didax!.advance(1000));
  await expect(pulse).toHaveCount(0);
  expect(await current.evaluate((el) => getComputedStyle(el).animationName)).toBe('none');
  // Reduced motion switched on while the page is open: steps land at once, no pulse.
  await page.emulateMedia({ reducedMotion: 'reduce' });
  await pg.step();
  await expect(pg.player).toHaveAttribute('data-step', '2');
  await expect(pulse).toHaveCount(0);
  const style = await current.evaluate((el) => {
    const s = getComputedStyle(el);
    return { animation: s.animationName, transition: s.transitionDuration };
  });
  expect(style.animation).toBe('none');
  expect(style.transition.split(',').every((d) => parseFloat(d) === 0)).toBe(true);
});
