/**
 * Gradient flow through the real server and engine (issue 11): stepping the fan-out
 * f(x) = sin(x) * x**2 shows x's first contribution and then the sum, and the sum is what real
 * JAX's grad gives (JAX runs here as the oracle, in the repo's .venv); the composition
 * jit(grad(loss)) reaches its backward phase; a scan card scrubs its iterations.
 */
import { execFileSync } from 'node:child_process';
import type { Page } from '@playwright/test';
import { PYTHON } from '../../support/env';
import { expect, test } from '../../support/fixtures';
import type { PlaygroundPage } from '../../support/PlaygroundPage';

const FANOUT = `import jax
import jax.numpy as jnp

def f(x):
    return jnp.sin(x) * x**2

print(jax.grad(f)(1.5))
`;

/** Real JAX's answer to a small expression (the oracle; never imported by the engine). */
function jax(expr: string, prelude = ''): number {
  const out = execFileSync(
    PYTHON,
    ['-c', `import jax, jax.numpy as jnp\nfrom jax import lax\n${prelude}\nprint(float(${expr}))`],
    { env: { ...process.env, JAX_PLATFORMS: 'cpu' } },
  );
  return Number(out.toString().trim());
}

/** The timeline index of the card's first backward step (from the page's own card). */
function backwardStart(page: Page): Promise<number> {
  return page.evaluate(() =>
    window.__didax!.workspace.view.card.timeline.findIndex((s: any) => s.phase === 'backward'),
  );
}

async function stepTo(pg: PlaygroundPage, k: number) {
  for (let s = Number(await pg.player.getAttribute('data-step')); s < k; s++) await pg.step();
  await expect(pg.player).toHaveAttribute('data-step', String(k));
}

test('stepping the fan-out shows the first contribution, then the sum jax.grad gives', async ({
  playground: pg,
  page,
}) => {
  await pg.open();
  await pg.requireEngine('viz');
  await pg.setCode(FANOUT);
  expect(await pg.runAndWait()).toBe('done');
  await pg.graphReady();
  const x = page.locator('[data-testid="graph-node"][data-kind="input"]');
  await expect(x).toHaveCount(1);
  const back = await backwardStart(page);
  const length = Number(await page.getByTestId('player-scrub').getAttribute('max')) + 1;
  await stepTo(pg, back);
  await expect(page.getByTestId('player-label')).toContainText('BACKWARD');
  await expect(x).toHaveAttribute('data-cotangent', '');
  // Walk the backward pass: x's printed partial sum changes exactly twice.
  const seen: string[] = [];
  for (let k = back + 1; k < length; k++) {
    await pg.step();
    const c = (await x.getAttribute('data-cotangent')) ?? '';
    if (c && c !== seen[seen.length - 1]) seen.push(c);
  }
  expect(seen).toHaveLength(2);
  const first = jax('2 * 1.5 * jnp.sin(1.5)'); // through x**2, the first transposed
  const total = jax('jax.grad(f)(1.5)', 'def f(x): return jnp.sin(x) * x**2');
  expect(Number(seen[0])).toBeCloseTo(first, 3);
  expect(Number(seen[1])).toBeCloseTo(total, 3);
  await expect(page.getByTestId('partial-sum').first()).toContainText('the total');
});

test('jit(grad(loss)) is one card that reaches its backward phase', async ({
  playground: pg,
  page,
}) => {
  await pg.open();
  await pg.requireEngine('viz');
  await pg.setCode(`import jax
import jax.numpy as jnp

def loss(w, x):
    return jnp.sum(jnp.sin(w * x) ** 2)

g = jax.jit(jax.grad(loss))
w = jnp.array([0.5, -1.0, 2.0])
print(g(w, jnp.array([1.0, 2.0, 3.0])))
`);
  expect(await pg.runAndWait()).toBe('done');
  await expect(pg.cards).toHaveCount(1);
  await expect(page.getByTestId('card-title')).toHaveText('jit(grad(loss))');
  await pg.graphReady();
  await page.getByTestId('player-end').click();
  await expect(page.getByTestId('player-label')).toContainText('BACKWARD');
  const w = await page
    .locator('[data-testid="graph-node"][data-kind="input"]')
    .first()
    .getAttribute('data-cotangent');
  const want = jax(
    'jnp.mean(jax.grad(loss)(jnp.array([0.5, -1.0, 2.0]), jnp.array([1.0, 2.0, 3.0])))',
    'def loss(w, x): return jnp.sum(jnp.sin(w * x) ** 2)',
  );
  expect(Number(w!.replace('μ ', ''))).toBeCloseTo(want, 3);
});

test('a scan card scrubs its iterations', async ({ playground: pg, page }) => {
  await pg.open();
  await pg.requireEngine('viz');
  await pg.setCode(`import jax
import jax.numpy as jnp
from jax import lax

def run(w, xs):
    def step(c, x):
        c = c * w + x
        return c, c
    total, ys = lax.scan(step, 0.0, xs)
    return total

print(jax.grad(run)(0.5, jnp.arange(1.0, 6.0)))
`);
  expect(await pg.runAndWait()).toBe('done');
  await pg.graphReady();
  const panel = page.getByTestId('loop-panel');
  await page.getByTestId('loop-scrub').fill('2');
  await expect(panel).toHaveAttribute('data-iteration', '2');
  await expect(page.getByTestId('loop-iteration')).toContainText('iteration 2 of 0…4');
  await expect(page.getByTestId('player-label')).toContainText('FORWARD');
  // The carry entering iteration 2 is 0.5 * (0.5 * 0 + 1) + 2 = 2.5.
  await expect(panel.getByTestId('value-scalar').first()).toHaveText('2.5');
  await page.getByTestId('player-end').click();
  await expect(panel).toHaveAttribute('data-phase', 'backward');
  await expect(panel).toHaveAttribute('data-iteration', '0');
});
