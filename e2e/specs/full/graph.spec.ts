/**
 * Issue 12 against the real server and engine: the gallery's MLP training step opens to a
 * readable overview with the user's names, and the embed view opens a stored share at its card
 * and step.
 */
import { expect, test } from '../../support/fixtures';

test("the MLP training step's first view: ≤ 25 boxes, labels ≥ 10 px, Python names", async ({
  playground: pg,
  page,
  request,
}) => {
  const ex = await (await request.get('/api/examples/mlp-training-step')).json();
  await pg.open();
  await pg.requireEngine('viz');
  await pg.setCode(ex.code);
  expect(await pg.runAndWait(60_000)).toBe('done');
  await pg.graphReady();
  const boxes = await pg.graphBoxes.count();
  expect(boxes).toBeGreaterThan(2);
  expect(boxes).toBeLessThanOrEqual(25);
  const { heights, texts } = await pg.graphLabels();
  expect(Math.min(...heights)).toBeGreaterThanOrEqual(10);
  // step(params, x, y): the arguments by their Python names (params as one pytree box). Skips
  // (saying so) while the engine records no user names.
  const named = await page.evaluate(() =>
    (window.__didax as any).workspace.view.card.jaxpr.invars.some((v: any) => v.user_name),
  );
  test.skip(!named, 'the engine records no VarData.user_name yet');
  expect(texts).toEqual(expect.arrayContaining(['params', 'x', 'y']));
  const names = await pg.graphBoxes.evaluateAll((els) =>
    els.map((e) => e.getAttribute('data-name')),
  );
  expect(names).not.toContain('a');
});

test('the embed view opens a share at its card and step, without the chrome', async ({
  page,
  request,
}) => {
  const code = [
    'import jax',
    'import jax.numpy as jnp',
    '',
    'def f(x):',
    '    return jnp.sin(x) * x',
    '',
    'print(jax.grad(f)(1.0))',
    'print(jax.grad(lambda x: jnp.cos(x) ** 2)(0.5))',
    '',
  ].join('\n');
  const made = await request.post('/api/share', { data: { code, view: { card: 1, step: 2 } } });
  expect(made.status()).toBe(201);
  const { id } = await made.json();
  await page.goto(`/embed/${id}`);
  await expect(page.getByTestId('embed')).toBeVisible();
  await expect(page.getByTestId('examples')).toHaveCount(0);
  await expect.poll(() => page.evaluate(() => window.__didax?.getCode())).toBe(code);
  const engine = await page.evaluate(() => (window.__didax as any).workspace.conn.welcome?.engine);
  test.skip(!engine?.viz, 'engine records no trace cards');
  await expect(page.getByTestId('card')).toHaveCount(2, { timeout: 45_000 });
  await expect(page.locator('[data-testid="card"][data-card-index="1"]')).toHaveAttribute(
    'aria-selected',
    'true',
  );
  await expect(page.getByTestId('player')).toHaveAttribute('data-step', '2');
  await expect(page.getByTestId('graph')).toHaveAttribute('data-status', 'ready');
});
