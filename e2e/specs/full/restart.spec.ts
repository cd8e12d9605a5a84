/** After the server restarts, the page reconnects by itself and runs again. */
import { join } from 'node:path';
import { Backend } from '../../support/backend';
import { freePort, tempDbPath } from '../../support/env';
import { expect, test } from '../../support/fixtures';

test('after a server restart the page reconnects', async ({ playground: pg, page }) => {
  test.setTimeout(180_000);
  const server = new Backend(freePort(), join(tempDbPath(), '..', 'restart.sqlite3'));
  await server.start();
  try {
    await pg.open(`${server.url}/`);
    await server.stop();
    await expect(pg.connection).not.toHaveAttribute('data-state', 'open');
    await server.start();
    await expect(pg.connection).toHaveAttribute('data-state', 'open', { timeout: 30_000 });
    await pg.setCode('print(40 + 2)\n');
    expect(await pg.runAndWait(60_000)).toBe('done');
    await expect(page.getByTestId('stdout')).toHaveText('42\n');
  } finally {
    await server.stop();
  }
});
