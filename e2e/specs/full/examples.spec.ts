/**
 * Every gallery example, through the real server and a real kernel: it loads from the menu,
 * runs green and shows as many trace cards as the run reports (at least one, except the
 * examples without a transformation call).
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { BACKEND_DIR } from '../../support/env';
import { expect, test } from '../../support/fixtures';

const ids = readdirSync(join(BACKEND_DIR, 'app', 'examples'))
  .map((f) => /^\d+-([a-z0-9-]+)\.py$/.exec(f)?.[1])
  .filter((x): x is string => !!x)
  .sort();
// Examples with no transformation call (plain jnp arithmetic): they record no cards.
const NO_CARDS = new Set(['type-promotion']);

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
    if (NO_CARDS.has(id)) {
      expect(n).toBe(0);
      return;
    }
    expect(n).toBeGreaterThan(0);
    await pg.graphReady();
    // The overview is readable (at most 25 boxes); expanded, every equation is drawn.
    expect(await pg.graphBoxes.count()).toBeLessThanOrEqual(25);
    const eqns = Number(await pg.graph.getAttribute('data-eqn-count'));
    await pg.expandAll();
    expect(await pg.drawnEqns()).toBe(eqns);
  });
}
