/** The core loop against the real backend and engine: run, graph, player, errors, limits. */
import { expect, test } from '../../support/fixtures';

const GRAD = `import jax
import jax.numpy as jnp

def loss(w):
    y = jnp.sin(w) * w
    return jnp.sum(y ** 2)

print(jax.grad(loss)(jnp.array([0.5, 1.0, 2.0])))
`;

test('code written with `import jax` runs and makes a grad card', async ({
  playground: pg,
  page,
}) => {
  await pg.open();
  await pg.requireEngine('viz');
  await pg.setCode(GRAD);
  expect(await pg.runAndWait()).toBe('done');
  await expect(page.getByTestId('stdout')).toContainText('[');
  await expect(pg.cards.first()).toHaveAttribute('data-kind', 'grad');
});

test('expanded, the graph draws every equation of the card', async ({ playground: pg }) => {
  await pg.open();
  await pg.requireEngine('viz');
  await pg.setCode(GRAD);
  await pg.runAndWait();
  await pg.graphReady();
  const eqns = Number(await pg.graph.getAttribute('data-eqn-count'));
  expect(eqns).toBeGreaterThanOrEqual(
    Number(await pg.cards.first().getAttribute('data-eqn-count')),
  );
  await pg.expandAll();
  expect(await pg.drawnEqns()).toBe(eqns);
  await expect(pg.jaxprEqns.first()).toBeVisible();
});

test('stepping the player changes node states forward, then backward', async ({
  playground: pg,
}) => {
  await pg.open();
  await pg.requireEngine('viz');
  await pg.setCode(GRAD);
  await pg.runAndWait();
  await pg.graphReady();
  const length = Number(await pg.player.evaluate(() => window.__didax!.workspace.player.length));
  expect(length).toBeGreaterThan(1);
  const phases: string[] = [];
  const states: string[][] = [];
  for (let i = 0; i < length; i++) {
    await pg.step();
    await expect(pg.player).toHaveAttribute('data-step', String(i));
    phases.push((await pg.player.getAttribute('data-phase')) ?? '');
    states.push(await pg.nodeStates());
  }
  const firstBack = phases.indexOf('backward');
  expect(firstBack).toBeGreaterThan(0);
  expect(phases.slice(0, firstBack).every((p) => p === 'forward')).toBe(true);
  expect(phases.slice(firstBack).every((p) => p === 'backward')).toBe(true);
  expect(states[firstBack - 1].some((s) => s === 'forward')).toBe(true);
  expect(states[states.length - 1].some((s) => s === 'backward')).toBe(true);
});

test('an error marks its line', async ({ playground: pg, page }) => {
  await pg.open();
  await pg.setCode('import jax\n\nx = 1 / 0\n');
  expect(await pg.runAndWait()).toBe('error');
  await expect(page.getByTestId('run-error')).toContainText('ZeroDivisionError');
  await expect(page.locator('[data-testid="editor"] [data-error-line="true"]')).toHaveText(
    'x = 1 / 0',
  );
});

test('an infinite loop ends in a timeout message and the next run works', async ({
  playground: pg,
  page,
}) => {
  await pg.open();
  await page.getByTestId('settings').click();
  await page.getByTestId('setting-timeout').fill('2');
  await page.getByTestId('settings').click();
  await pg.setCode('while True:\n    pass\n');
  expect(await pg.runAndWait(40_000)).toBe('timeout');
  await expect(page.getByTestId('run-error')).toHaveAttribute('data-kind', 'timeout');
  await expect(page.getByTestId('run-error')).toContainText(/time/i);
  await pg.setCode('print("alive")\n');
  expect(await pg.runAndWait(60_000)).toBe('done');
  await expect(page.getByTestId('stdout')).toHaveText('alive\n');
});

test('a share link round-trips in a fresh browser context', async ({
  playground: pg,
  page,
  browser,
  baseURL,
}) => {
  await pg.open();
  // Plain Python, so the round trip is about sharing, not about which engine features exist.
  const code = `# shared program ✓\nprint("shared", 6 * 7)\n`;
  await pg.setCode(code);
  await page.getByTestId('share').click();
  await expect(page.getByTestId('notice')).toContainText('Share link copied');
  const link = (await page.getByTestId('share-link').textContent())!;
  expect(link).toMatch(new RegExp(`^${baseURL}/s/[A-Za-z0-9_-]+`));

  const ctx = await browser.newContext();
  const fresh = await ctx.newPage();
  await fresh.goto(link);
  await expect.poll(() => fresh.evaluate(() => window.__didax?.getCode())).toBe(code);
  // A shared link runs on open, so its output appears without touching anything.
  await expect(fresh.getByTestId('run-status')).toHaveAttribute('data-state', 'done', {
    timeout: 45_000,
  });
  await expect(fresh.getByTestId('stdout')).toHaveText('shared 42\n');
  await ctx.close();
});
