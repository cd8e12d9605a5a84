/**
 * Every gallery example, through the real server and a real kernel: it loads from the menu,
 * runs green and shows as many trace cards as the run reports (at least one: even the
 * type-promotion example ends with make_jaxpr), and every card's animation shows something:
 * the forward pass reveals values, and a reverse-mode card's backward pass ends with non-zero
 * cotangents.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { BACKEND_DIR } from '../../support/env';
import type { Page } from '@playwright/test';
import { expect, test } from '../../support/fixtures';
import type { PlaygroundPage } from '../../support/PlaygroundPage';

const ids = readdirSync(join(BACKEND_DIR, 'app', 'examples'))
  .map((f) => /^\d+-([a-z0-9-]+)\.py$/.exec(f)?.[1])
  .filter((x): x is string => !!x)
  .sort();

test('the examples menu lists the gallery', async ({ playground: pg, page }) => {
  await pg.open();
  for (const id of ids)
    await expect(page.locator(`[data-testid="examples"] option[value="${id}"]`)).toBeAttached();
});

for (const id of ids) {
  test(`example ${id} runs and shows its cards`, async ({ playground: pg, page, request }) => {
    const ex = await (await request.get(`/api/examples/${id}`)).json();
    await pg.open();
    await pg.requireEngine('viz');
    await page.getByTestId('examples').selectOption(id);
    await expect.poll(() => pg.code()).toBe(ex.code);
    expect(await pg.runAndWait(60_000)).toBe('done');
    const n = Number(await pg.status.getAttribute('data-n-cards'));
    await expect(pg.cards).toHaveCount(n);
    expect(n).toBeGreaterThan(0);
    await pg.graphReady();
    // The overview is readable (at most 25 boxes); expanded, every equation is drawn.
    expect(await pg.graphBoxes.count()).toBeLessThanOrEqual(25);
    const eqns = Number(await pg.graph.getAttribute('data-eqn-count'));
    await pg.expandAll();
    expect(await pg.drawnEqns()).toBe(eqns);
    for (let i = 0; i < n; i++) await animationShowsSomething(pg, page, i);
  });
}

const REVERSE = new Set(['grad', 'value_and_grad', 'vjp', 'jacrev', 'hessian']);

/** Card i: its last forward step shows values; a reverse-mode card ends with gradients. */
async function animationShowsSomething(pg: PlaygroundPage, page: Page, i: number) {
  const card = pg.cards.nth(i);
  await card.click();
  await pg.graphReady();
  await pg.expandAll();
  const what = `card ${i} (${await card.getAttribute('data-kind')})`;
  const { back, length } = await page.evaluate(() => {
    const t = window.__didax!.workspace.view.card.timeline as { phase: string }[];
    const b = t.findIndex((s) => s.phase === 'backward');
    return { back: b < 0 ? t.length : b, length: t.length };
  });
  expect(back, `${what}: a forward pass to animate`).toBeGreaterThan(0);
  await page.getByTestId('player-scrub').fill(String(back - 1));
  await expect(pg.player).toHaveAttribute('data-phase', 'forward');
  expect(
    await page.locator('[data-testid="value-badge"][data-kind="value"]').count(),
    `${what}: values revealed`,
  ).toBeGreaterThan(0);
  if (!REVERSE.has((await card.getAttribute('data-kind')) ?? '')) return;
  expect(length, `${what}: a backward pass to animate`).toBeGreaterThan(back);
  await page.getByTestId('player-end').click();
  await expect(pg.player).toHaveAttribute('data-phase', 'backward');
  const cts = await page
    .locator('[data-testid="graph-node"][data-cotangent]')
    .evaluateAll((els) => els.map((e) => e.getAttribute('data-cotangent') ?? ''));
  const nonZero = cts.map((c) => Number(c.replace('μ ', ''))).filter((v) => v !== 0 && !!v);
  expect(nonZero.length, `${what}: non-zero cotangents (${cts.join(', ')})`).toBeGreaterThan(0);
}
