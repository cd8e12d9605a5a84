import { syntheticCard } from '../../../frontend/src/lib/testing/synthetic';
import { expect, test } from '../../support/fixtures';
import { MockKernel } from '../../support/mockKernel';

test('a queued run shows how many runs wait ahead of it', async ({ playground: pg, page }) => {
  await MockKernel.install(page, { run: () => ({ queue: [3, 2], hang: true }) });
  await pg.open();
  await pg.setCode('print(1)\n');
  await pg.run.click();
  const status = page.getByTestId('run-status');
  await expect(status).toHaveAttribute('data-state', 'queued');
  await expect(page.getByTestId('queue-position')).toHaveText('waiting for a kernel, 2 ahead');
  await page.getByTestId('output').screenshot({ path: 'test-results/queue-position.png' });
});

test('a card sent in chunks arrives whole', async ({ playground: pg, page }) => {
  const card = syntheticCard({ eqns: 300 });
  await MockKernel.install(page, { run: () => ({ cards: [card], chunkChars: 4096 }) });
  await pg.open();
  await pg.setCode('print(1)\n');
  expect(await pg.runAndWait()).toBe('done');
  await expect(pg.cards).toHaveCount(1);
  await expect(pg.cards.first()).toHaveAttribute('data-eqn-count', '300');
  await expect(page.getByTestId('protocol-warning')).toHaveCount(0);
});
