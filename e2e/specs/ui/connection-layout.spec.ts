import { expect, test } from '../../support/fixtures';
import { MockKernel, sample } from '../../support/mockKernel';

test('rlimits_only sandbox shows a visible banner', async ({ playground: pg, page }) => {
  await MockKernel.install(page, { welcome: sample('server.welcome.rlimits_only').msg });
  await pg.open();
  await expect(page.getByTestId('sandbox-banner')).toContainText('resource limits only');
});

test('a dropped connection reconnects with back-off and runs again', async ({
  playground: pg,
  page,
}) => {
  const kernel = await MockKernel.install(page);
  await pg.open();
  await kernel.dropAll();
  await expect(pg.connection).toHaveAttribute('data-state', 'reconnecting');
  await expect(pg.connection).toHaveAttribute('data-state', 'open', { timeout: 10_000 });
  expect(await pg.runAndWait()).toBe('done');
});

test('keyboard: Ctrl+Enter runs, ? opens help, Alt+T switches theme', async ({
  playground: pg,
  page,
}) => {
  const kernel = await MockKernel.install(page);
  await pg.open();
  await page.locator('[data-testid="editor"] .cm-content').click();
  await page.keyboard.press('Control+Enter');
  await expect.poll(() => kernel.runs.length).toBe(1);
  await expect(pg.status).toHaveAttribute('data-state', 'done');
  await page.getByTestId('run').focus();
  await page.keyboard.press('?');
  await expect(page.getByTestId('help-dialog')).toBeVisible();
  await expect(page.getByTestId('help-dialog')).toContainText('Step forward');
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('help-dialog')).toBeHidden();
  const before = await page.evaluate(() => document.documentElement.dataset.theme);
  await page.keyboard.press('Alt+t');
  const after = await page.evaluate(() => document.documentElement.dataset.theme);
  expect(after).not.toBe(before);
  // Player keys walk the timeline without touching the mouse.
  await pg.graphReady();
  await page.getByTestId('run').focus();
  await page.keyboard.press('.');
  await expect(pg.player).toHaveAttribute('data-step', '0');
});

test('narrow screens get a read-only tabbed layout', async ({ playground: pg, page }) => {
  await page.setViewportSize({ width: 390, height: 800 });
  await MockKernel.install(page);
  await pg.open();
  await expect(page.getByTestId('page')).toHaveAttribute('data-layout', 'narrow');
  const tabs = page.getByTestId('narrow-tabs').getByRole('tab');
  await expect(tabs).toHaveText(['Code', 'Graph', 'Jaxpr', 'Stages', 'Output']);
  await expect(page.locator('[data-testid="editor"] .cm-content')).toHaveAttribute(
    'contenteditable',
    'false',
  );
  await pg.runAndWait();
  await tabs.nth(1).click();
  await expect(pg.graph).toBeVisible();
  await pg.graphReady();
  await expect(page.getByTestId('editor')).toBeHidden();
  await tabs.nth(2).click();
  await expect(pg.jaxprEqns.first()).toBeVisible();
});
