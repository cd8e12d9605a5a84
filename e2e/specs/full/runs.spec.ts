/**
 * Honest runs and ordered output (issue 14), against the real backend and sandboxed kernels:
 * a second run keeps the first one's outcome, results go stale after an edit, printed text comes
 * before the traceback, a 10 MB print is cut with a notice, a card over one frame arrives in
 * chunks (issue 13), and a plot arrives as an image.
 */
import { expect, test } from '../../support/fixtures';

test('Ctrl+Enter during a run stops it and keeps both outcomes visible', async ({
  playground: pg,
  page,
}) => {
  await pg.open();
  await pg.setCode("import time\nprint('first run', flush=True)\ntime.sleep(30)\n");
  await pg.run.click();
  await expect(page.getByTestId('stop')).toBeVisible(); // Run became Stop
  await expect(page.getByTestId('stdout')).toHaveText('first run\n');
  await pg.setCode("print('second run')\n");
  await page.getByTestId('editor-content').click();
  await page.keyboard.press('Control+Enter');
  await expect(pg.status).toHaveAttribute('data-state', 'done', { timeout: 45_000 });
  const runs = page.getByTestId('run-entry');
  await expect(runs).toHaveCount(2);
  await expect(runs.nth(0)).toHaveAttribute('data-state', 'cancelled');
  await expect(runs.nth(0)).toContainText('first run');
  await expect(runs.nth(0)).toContainText('stopped for a newer run');
  await expect(runs.nth(1)).toHaveAttribute('data-state', 'done');
  await expect(page.getByTestId('stdout')).toHaveText('second run\n');
  await expect(page.getByTestId('run')).toBeVisible(); // Stop is Run again
});

test('editing after a run marks its results stale, with line links following the edit', async ({
  playground: pg,
  page,
}) => {
  await pg.open();
  await pg.requireEngine('viz');
  await pg.setCode(
    'import jax\nimport jax.numpy as jnp\n\ndef f(x):\n    return jnp.sin(x) / 0 * x\n\nprint(jax.grad(f)(1.0))\nraise ValueError("x")\n',
  );
  expect(await pg.runAndWait()).toBe('error');
  await expect(page.getByTestId('stale-marker')).toHaveCount(0);
  await expect(page.getByTestId('stale-banner')).toHaveCount(0);
  // Insert a line at the top: the results are now stale and line 8 has become line 9.
  await page.getByTestId('editor-content').click();
  await page.keyboard.press('Control+Home');
  await page.keyboard.type('# a comment\n');
  await expect(page.getByTestId('stale-marker')).toBeVisible();
  await expect(page.getByTestId('stale-banner')).toBeVisible();
  await expect(page.getByTestId('run-entry')).toHaveAttribute('data-stale', 'true');
  const marked = page.locator('[data-testid="editor"] [data-error-line="true"]');
  await expect(marked).toHaveText('raise ValueError("x")');
  await page.getByTestId('error-line').click();
  await expect(page.locator('[data-testid="editor"] .cm-activeLine')).toHaveText(
    'raise ValueError("x")',
  );
  // Changing the raising line itself unlinks it.
  await page.keyboard.press('End');
  await page.keyboard.type('  # changed');
  await expect(page.getByTestId('error-line')).toBeDisabled();
});

test('text printed before an exception appears before the traceback', async ({
  playground: pg,
  page,
}) => {
  await pg.open();
  await pg.setCode(
    "import sys, warnings\nprint('printed first')\nwarnings.warn('warned second')\nprint('to stderr third', file=sys.stderr)\nraise RuntimeError('raised last')\n",
  );
  expect(await pg.runAndWait()).toBe('error');
  const body = page.getByTestId('streams');
  const text = await body.innerText();
  const at = (s: string) => text.indexOf(s);
  expect(at('printed first')).toBeGreaterThanOrEqual(0);
  expect(at('printed first')).toBeLessThan(at('warned second'));
  expect(at('warned second')).toBeLessThan(at('to stderr third'));
  expect(at('to stderr third')).toBeLessThan(at('RuntimeError: raised last'));
});

test('a 10 MB print shows its first part and says the output was truncated', async ({
  playground: pg,
  page,
}) => {
  await pg.open();
  await pg.setCode("print('ab' * 5_000_000)\nprint('never shown')\n");
  const state = await pg.runAndWait();
  await expect(page.getByTestId('output-truncated')).toContainText('output truncated at 1 MiB');
  await expect(page.getByTestId('status-truncated')).toHaveText('output truncated at 1 MiB');
  expect(['done', 'error']).toContain(state);
  const shown = await page.getByTestId('stdout').evaluate((el) => el.textContent ?? '');
  expect(shown.length).toBeGreaterThan(500_000);
  expect(shown.length).toBeLessThanOrEqual(1 << 20);
  expect(shown.startsWith('abababab')).toBe(true);
  await expect(page.getByTestId('streams')).not.toContainText('never shown');
});

test('a card too big for one frame arrives in chunks, trimmed to its budget with a notice', async ({
  playground: pg,
  page,
}) => {
  const frames: string[] = [];
  page.on('websocket', (ws) =>
    ws.on('framereceived', (f) => {
      if (typeof f.payload === 'string') frames.push(f.payload);
    }),
  );
  await pg.open();
  await pg.requireEngine('viz');
  await pg.setCode(
    'import jax\n\ndef f(x):\n    for _ in range(3000):\n        x = x + 1.0\n    return x\n\nprint(len(jax.make_jaxpr(f)(1.0).eqns))\n',
  );
  expect(await pg.runAndWait()).toBe('done');
  await expect(page.getByTestId('stdout')).toContainText('3000');
  await expect(pg.cards).toHaveCount(1);
  const shown = Number(await pg.cards.first().getAttribute('data-eqn-count'));
  expect(shown).toBeGreaterThan(500);
  expect(shown).toBeLessThan(3000);
  await expect(page.getByTestId('card-notice').first()).toContainText(`equations are shown`);
  await expect(page.getByTestId('protocol-warning')).toHaveCount(0);
  const chunks = frames.filter((f) => f.includes('"type":"trace_card_chunk"'));
  expect(chunks.length).toBeGreaterThan(1);
  expect(Math.max(...frames.map((f) => new TextEncoder().encode(f).length))).toBeLessThanOrEqual(
    256 * 1024,
  );
  await page.screenshot({ path: 'test-results/chunked-card.png' });
});

test('a matplotlib plot appears in the output as an image, in order with the text', async ({
  playground: pg,
  page,
}) => {
  await pg.open();
  await pg.setCode(
    "import matplotlib.pyplot as plt\nprint('before the plot')\nplt.plot([1, 3, 2])\nplt.title('three points')\nplt.show()\nprint('after the plot')\n",
  );
  expect(await pg.runAndWait()).toBe('done');
  const img = page.getByTestId('plot').getByRole('img', { name: 'Figure 1: three points' });
  await expect(img).toBeVisible();
  expect(await img.evaluate((el: HTMLImageElement) => el.naturalWidth)).toBeGreaterThan(100);
  const order = await page
    .getByTestId('streams')
    .evaluate((el) => [...el.children].map((c) => c.getAttribute('data-testid')));
  expect(order).toEqual(['stdout', 'plot', 'stdout']);
});
