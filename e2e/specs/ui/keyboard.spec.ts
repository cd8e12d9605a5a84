/**
 * Icons and tabs (issue 14): player icons are SVG; every stage tab stays in sight. (Escape then Tab
 * leaving the editor is checked against the real server, in full/workspace.spec.ts.)
 */
import { expect, test } from '../../support/fixtures';
import { MockKernel, sample } from '../../support/mockKernel';

test('player buttons draw SVG icons, not font glyphs', async ({ playground: pg, page }) => {
  await MockKernel.install(page);
  await pg.open();
  for (const id of ['player-start', 'player-back', 'player-play', 'player-forward', 'player-end']) {
    const button = page.getByTestId(id);
    await expect(button.locator('svg')).toHaveCount(1);
    expect((await button.textContent())?.trim()).toBe('');
  }
});

test('every stage tab of a long pipeline stays in sight, with no second control', async ({
  playground: pg,
  page,
}) => {
  const grad = sample('server.trace_card.grad').msg.card;
  const jit = sample('server.trace_card.jit').msg.card;
  const names = ['jvp', 'partial_eval_known', 'partial_eval_unknown', 'linear', 'transpose'];
  const stages = [
    ...names.map((name) => ({ ...grad.stages[0], name, title: `${name} (a long title)` })),
    ...jit.stages,
  ];
  await MockKernel.install(page, { run: () => ({ cards: [{ ...grad, stages }] }) });
  await page.setViewportSize({ width: 900, height: 760 });
  await pg.open();
  await pg.runAndWait();
  await page.getByTestId('tab-stages').click();
  const tabs = page.getByTestId('stage-tab');
  await expect(tabs).toHaveCount(stages.length);
  const strip = await page.getByTestId('stage-tabs').boundingBox();
  for (const box of await tabs.evaluateAll((els) =>
    els.map((e) => e.getBoundingClientRect().toJSON()),
  )) {
    expect(box.left).toBeGreaterThanOrEqual(strip!.x - 0.5);
    expect(box.right).toBeLessThanOrEqual(strip!.x + strip!.width + 0.5);
  }
  await expect(page.getByTestId('stages').getByRole('slider')).toHaveCount(0);
  await tabs.last().click();
  await expect(page.getByTestId('stage-title')).toHaveText(jit.stages.at(-1).title);
});
