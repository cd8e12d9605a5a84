/**
 * Work is kept (issue 14): the editor's code, settings and example survive a reload, the example
 * can be restored, a share link asks before replacing unsaved edits (and opened in another tab
 * replaces nothing of this one's), a missing or damaged share says what happened and offers the
 * empty playground, and Escape then Tab leaves the editor. Real backend (share store, examples).
 */
import { PlaygroundPage } from '../../support/PlaygroundPage';
import { expect, test } from '../../support/fixtures';

test('reload keeps the edited code, the settings and the example; Restore brings it back', async ({
  playground: pg,
  page,
}) => {
  await pg.open();
  await page.getByTestId('examples').selectOption('vmap');
  await expect(page.getByTestId('example-name')).toContainText('vmap');
  const original = await pg.code();
  // Edit as a person does: type at the end of the program.
  await page.getByTestId('editor-content').click();
  await page.keyboard.press('Control+End');
  await page.keyboard.type('\nprint("kept across reloads")');
  await page.getByTestId('settings').click();
  await page.getByTestId('setting-x64').check();
  await expect(page.getByTestId('example-modified')).toBeVisible();

  await page.reload();
  await pg.connected();
  expect(await pg.code()).toBe(original + '\nprint("kept across reloads")');
  await page.getByTestId('settings').click();
  await expect(page.getByTestId('setting-x64')).toBeChecked();
  await expect(page.getByTestId('example-name')).toContainText('vmap');

  await page.getByTestId('restore-example').click();
  await expect.poll(() => pg.code()).toBe(original);
  await expect(page.getByTestId('restore-example')).toHaveCount(0);
});

test('a share link asks before it replaces unsaved edits, in this tab or another', async ({
  playground: pg,
  page,
  context,
}) => {
  await pg.open();
  const shared = 'print("from a share")\n';
  const res = await page.request.post('/api/share', { data: { code: shared, settings: {} } });
  const { url } = await res.json();
  const mine = 'print("my unsaved work")\n';
  await pg.setCode(mine);
  await page.goto(url);
  await expect(page.getByTestId('share-dialog')).toBeVisible();
  await page.getByTestId('share-keep').click();
  expect(await pg.code()).toBe(mine);
  await expect(page).toHaveURL(/\/$/); // handled: a reload shows the kept work

  // The link opened in a second tab asks too (it opens with the latest work); opened there, it
  // replaces nothing of this tab's, nor the work a new tab starts from.
  const other = await context.newPage();
  const second = new PlaygroundPage(other);
  await other.goto(url);
  await other.getByTestId('share-open').click();
  await expect.poll(() => second.code()).toBe(shared);
  await expect(second.status).toHaveAttribute('data-state', 'done'); // opening a link runs it
  await page.reload();
  await pg.connected();
  expect(await pg.code()).toBe(mine);
  const third = new PlaygroundPage(await context.newPage());
  await third.open();
  expect(await third.code()).toBe(mine);
});

test('a bad share id or a damaged #code= link says so and offers the empty playground', async ({
  playground: pg,
  page,
}) => {
  await pg.open();
  await pg.setCode('print("mine")\n');
  await page.goto('/s/doesnotexist123');
  const title = page.getByTestId('share-failure');
  await expect(title).toHaveText('This share link does not exist');
  await expect(page.getByTestId('share-dialog')).not.toContainText(/HTTP|404|api\/share/);
  await page.getByTestId('share-dismiss').click();
  await expect(page.getByTestId('share-dialog')).toBeHidden();
  await expect(page).toHaveURL(/\/$/);
  expect(await pg.code()).toBe('print("mine")\n');

  await page.goto('about:blank'); // a link opened afresh, as from another app
  await page.goto('/#code=%%%not-a-program');
  await expect(title).toHaveText('This link is damaged');
  await expect(page.getByTestId('share-dialog')).not.toContainText(/atob|Failed to execute/);
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('share-dialog')).toBeHidden();
  expect(await pg.code()).toBe('print("mine")\n');
});

test('Tab indents in the editor, and Escape then Tab moves focus out of it', async ({
  playground: pg,
  page,
}) => {
  await pg.open();
  await expect(page.getByTestId('editor-hint')).toContainText('Esc then Tab leaves the editor');
  const content = page.getByTestId('editor-content');
  await content.click();
  await page.keyboard.press('Control+End');
  await page.keyboard.press('Tab');
  await expect(content).toBeFocused(); // Tab alone indents
  expect(await pg.code()).toMatch(/\n {4}$/);
  await page.keyboard.press('Escape');
  await page.keyboard.press('Tab');
  await expect(content).not.toBeFocused();
  const inEditor = await page.evaluate(
    () => !!document.activeElement?.closest('[data-testid="editor"]'),
  );
  expect(inEditor).toBe(false);
});
