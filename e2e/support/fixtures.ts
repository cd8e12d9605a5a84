/** `test` with a `playground` page object for every spec. */
import { test as base } from '@playwright/test';
import { PlaygroundPage } from './PlaygroundPage';

export const test = base.extend<{ playground: PlaygroundPage }>({
  playground: async ({ page }, use) => {
    await use(new PlaygroundPage(page));
  },
});
export { expect } from '@playwright/test';
