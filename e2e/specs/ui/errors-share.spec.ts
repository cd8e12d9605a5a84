import { expect, test } from '../../support/fixtures';
import { MockKernel, sample } from '../../support/mockKernel';

const BAD = `def f(x):\n    y = x + 1\n    return x / 0\n\nf(1)\n`;

test('an error marks its line and traceback frames jump to the editor', async ({
  playground: pg,
  page,
}) => {
  const error = sample('server.run_reply.exception').msg.error;
  await MockKernel.install(page, { run: () => ({ error }) });
  await pg.open();
  await pg.setCode(BAD);
  expect(await pg.runAndWait()).toBe('error');
  await expect(page.getByTestId('run-error')).toContainText('ZeroDivisionError: division by zero');
  const marked = page.locator('[data-testid="editor"] [data-error-line="true"]');
  await expect(marked).toHaveCount(1);
  await expect(marked).toHaveText('    return x / 0');
  await page.getByTestId('traceback').getByRole('button', { name: 'line 5' }).click();
  await expect(page.locator('[data-testid="editor"] [data-linked="true"]')).toHaveText('f(1)');
});

test('with the share store down, Share makes a #code= link that opens in a fresh context', async ({
  playground: pg,
  page,
  browser,
}) => {
  await MockKernel.install(page);
  await page.route('**/api/share', (r) => r.fulfill({ status: 503, body: 'down' }));
  await pg.open();
  const code = '# shared ✓\nimport jax\nprint(jax.grad(lambda x: x * x)(3.0))\n';
  await pg.setCode(code);
  await page.getByTestId('share').click();
  const link = await page.getByTestId('share-link').textContent();
  expect(link).toMatch(/#code=[A-Za-z0-9_-]+/);
  await expect(page.getByTestId('notice')).toContainText('self-contained');

  const ctx = await browser.newContext();
  const fresh = await ctx.newPage();
  const kernel = await MockKernel.install(fresh);
  await fresh.goto(link!);
  await expect.poll(() => fresh.evaluate(() => window.__didax?.getCode())).toBe(code);
  // Opening a link runs it, so the viewer sees the cards.
  await expect.poll(() => kernel.runs.length).toBe(1);
  expect(kernel.runs[0].code).toBe(code);
  await ctx.close();
});

test('Stop sends cancel_request and ends the run as cancelled', async ({
  playground: pg,
  page,
}) => {
  const kernel = await MockKernel.install(page, { run: () => ({ hang: true }) });
  await pg.open();
  await pg.run.click();
  await page.getByTestId('stop').click();
  await expect(pg.status).toHaveAttribute('data-state', 'cancelled');
  expect(kernel.runs).toHaveLength(1);
});

test('running again mid-run keeps the stopped run and its cards, marked cancelled', async ({
  playground: pg,
  page,
}) => {
  const card = sample('server.trace_card.grad').msg.card;
  let n = 0;
  const kernel = await MockKernel.install(page, {
    run: () =>
      ++n === 1
        ? { cards: [card], stdout: 'first\n', hangAfterOutput: true }
        : { stdout: 'second\n' },
  });
  await pg.open();
  await pg.run.click();
  await expect(pg.cards).toHaveCount(1);
  await page.getByTestId('stop').click();
  await expect(pg.status).toHaveAttribute('data-state', 'cancelled');
  // The stopped run's card stays in view, marked as cancelled.
  await expect(page.getByTestId('card-cancelled')).toHaveCount(1);
  await expect(page.getByTestId('cards-from')).toContainText('cancelled');
  await pg.run.click();
  await expect(pg.status).toHaveAttribute('data-state', 'done');
  expect(kernel.runs).toHaveLength(2);
  const entries = page.getByTestId('run-entry');
  await expect(entries).toHaveCount(2);
  await expect(entries.first()).toContainText('first');
  await expect(entries.first()).toHaveAttribute('data-state', 'cancelled');
  // The new run made no card: the last cards stay, and say where they come from.
  await expect(pg.cards).toHaveCount(1);
  await expect(page.getByTestId('cards-from')).toContainText('run 1 · cancelled');
});
