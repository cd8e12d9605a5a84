/** Keyboard and icons (issue 14): Escape then Tab leaves the editor; player icons are SVG. */
import { expect, test } from '../../support/fixtures';
import { MockKernel } from '../../support/mockKernel';

test('Tab indents in the editor, and Escape then Tab moves focus out of it', async ({
  playground: pg,
  page,
}) => {
  await MockKernel.install(page);
  await pg.open();
  await expect(page.getByTestId('editor-hint')).toContainText('Esc then Tab leaves the editor');
  const content = page.getByTestId('editor-content');
  await content.click();
  await page.keyboard.press('Control+End');
  await page.keyboard.press('Tab');
  await expect(content).toBeFocused(); // Tab alone indents
  await page.keyboard.press('Escape');
  await page.keyboard.press('Tab');
  await expect(content).not.toBeFocused();
  const inEditor = await page.evaluate(
    () => !!document.activeElement?.closest('[data-testid="editor"]'),
  );
  expect(inEditor).toBe(false);
});

test('player buttons draw SVG icons, not font glyphs', async ({ playground: pg, page }) => {
  await MockKernel.install(page);
  await pg.open();
  for (const id of ['player-start', 'player-back', 'player-play', 'player-forward', 'player-end']) {
    const button = page.getByTestId(id);
    await expect(button.locator('svg')).toHaveCount(1);
    expect((await button.textContent())?.trim()).toBe('');
  }
});
