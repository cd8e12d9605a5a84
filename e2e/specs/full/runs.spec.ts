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
  await pg.requireEngine('viz');
  await pg.setCode(
    "import time, jax\nprint('first run', jax.grad(jax.numpy.sin)(0.0), flush=True)\ntime.sleep(30)\n",
  );
  await pg.run.click();
  await expect(page.getByTestId('stop')).toBeVisible(); // Run became Stop
  await expect(page.getByTestId('stdout')).toHaveText('first run 1.0\n');
  await expect(pg.cards).toHaveCount(1);
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
  // The second run made no card: the first run's card stays in view, marked cancelled.
  await expect(pg.cards).toHaveCount(1);
  await expect(page.getByTestId('cards-from')).toContainText('run 1 · cancelled');
  await expect(page.getByTestId('card-cancelled')).toBeVisible();
});

test('editing after a run marks its results stale; links into the editor follow the edit', async ({
  playground: pg,
  page,
}) => {
  await pg.open();
  await pg.requireEngine('viz');
  await pg.setCode(
    'import jax\nimport jax.numpy as jnp\n\ndef f(x):\n    y = jnp.sin(x)\n    return jnp.cos(y) * x\n\nprint(jax.grad(f)(1.0))\nraise ValueError("x")\n',
  );
  expect(await pg.runAndWait()).toBe('error');
  await expect(page.getByTestId('stale-marker')).toHaveCount(0);
  await expect(page.getByTestId('stale-banner')).toHaveCount(0);
  // Insert a line at the top: the results are now stale and every line has moved down by one.
  await page.getByTestId('editor-content').click();
  await page.keyboard.press('Control+Home');
  await page.keyboard.type('# a comment\n');
  await expect(page.getByTestId('stale-marker')).toBeVisible();
  await expect(page.getByTestId('stale-banner')).toBeVisible();
  await expect(page.getByTestId('run-entry')).toHaveAttribute('data-stale', 'true');
  const editor = page.getByTestId('editor');
  await expect(editor.locator('[data-error-line="true"]')).toHaveText('raise ValueError("x")');
  await page.getByTestId('error-line').click();
  await expect(editor.locator('.cm-activeLine')).toHaveText('raise ValueError("x")');
  // A graph node and a stage row link to the line their equation now has.
  const linked = editor.locator('[data-linked="true"]');
  const sinRow = page.getByTestId('jaxpr-eqn').filter({ hasText: 'sin' }).first();
  const sin = pg.graphNodes.and(
    page.locator(`[data-eqn-id="${await sinRow.getAttribute('data-eqn-id')}"]`),
  );
  await pg.graphReady();
  await sin.click();
  await expect(linked).toHaveText('    y = jnp.sin(x)');
  await sin.hover();
  await expect(page.getByTestId('graph-tooltip')).toContainText('line 6 in f (line 5 in run 1)');
  await page.mouse.move(0, 0);
  await page.getByTestId('tab-stages').click();
  await page.locator('[data-testid="stage-tab"][data-stage="jvp"]').click();
  await page
    .getByTestId('stage-eqn')
    .filter({ hasText: /= cos / })
    .last()
    .click(); // cos's own row
  await expect(linked).toHaveText('    return jnp.cos(y) * x');
  // Changing a line unlinks it: its traceback frame is disabled, its node lights no line.
  await page.getByTestId('editor-content').click();
  await page.keyboard.press('Control+End');
  await page.keyboard.press('ArrowUp');
  await page.keyboard.press('End');
  await page.keyboard.type('  # changed');
  await expect(page.getByTestId('error-line')).toBeDisabled();
  await page.keyboard.press('Control+Home');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('End');
  await page.keyboard.type('  # changed');
  await sin.click();
  await expect(page.locator('[data-testid="graph-node"].active')).toHaveCount(1);
  await expect(linked).toHaveCount(0);
  await sin.hover();
  await expect(page.getByTestId('graph-tooltip')).toContainText(
    'line 5 in f when run 1 ran (changed since)',
  );
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
    'import jax\n\ndef f(x):\n    for _ in range(9000):\n        x = x + 1.0\n    return x\n\nprint(len(jax.make_jaxpr(f)(1.0).eqns))\n',
  );
  expect(await pg.runAndWait()).toBe('done');
  await expect(page.getByTestId('stdout')).toContainText('9000');
  await expect(pg.cards).toHaveCount(1);
  const shown = Number(await pg.cards.first().getAttribute('data-eqn-count'));
  expect(shown).toBeGreaterThan(500);
  expect(shown).toBeLessThan(9000); // the kernel's 10 MiB budget holds ~7,000 such equations
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
