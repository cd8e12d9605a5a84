/**
 * Issue 12 on synthetic v2 cards (a transformer under jit(value_and_grad): Python names, a
 * forest of call groups, StableHLO/HLO row links): the overview, search, expand/collapse,
 * keyboard, compiled-code links, export, legend.
 */
import { readFileSync } from 'node:fs';
import { syntheticProgram } from '../../../frontend/src/lib/testing/synthetic';
import { expect, test } from '../../support/fixtures';
import { MockKernel } from '../../support/mockKernel';
import type { PlaygroundPage } from '../../support/PlaygroundPage';

const program = syntheticProgram({ layers: 2 });

async function openProgram(pg: PlaygroundPage) {
  await MockKernel.install(pg.page, { run: () => ({ cards: [program.card] }) });
  await pg.open();
  await pg.setCode(program.code);
  await pg.runAndWait();
  await pg.graphReady();
}

test('a card opens to a readable overview with Python names', async ({ playground: pg, page }) => {
  await openProgram(pg);
  const boxes = await pg.graphBoxes.count();
  expect(boxes).toBeGreaterThan(3);
  expect(boxes).toBeLessThanOrEqual(25);
  const { heights, texts } = await pg.graphLabels();
  expect(heights.length).toBeGreaterThan(5);
  expect(Math.min(...heights)).toBeGreaterThanOrEqual(10);
  expect(texts).toEqual(expect.arrayContaining(['params', 'x', 'loss']));
  await expect(page.locator('[data-testid="graph-group"][data-name="params"]')).toHaveAttribute(
    'data-kind',
    'args',
  );
  // Jaxpr names are one toggle away, in the graph and the listing alike.
  await page.getByTestId('graph-names').click();
  await expect(page.locator('[data-testid="graph-node"][data-name="x"]')).toHaveCount(0);
  await expect(page.getByTestId('jaxpr-pane')).toHaveAttribute('data-names', 'jaxpr');
  await page.getByTestId('graph-names').click();
  await expect(page.getByTestId('jaxpr-pane')).toHaveAttribute('data-names', 'python');
  await expect(page.getByTestId('jaxpr')).toContainText("params['blocks'][0]['Wq']:f32[8,16]");
});

test('search reveals and focuses a node nested three groups deep', async ({
  playground: pg,
  page,
}) => {
  await openProgram(pg);
  const scores = page.locator('[data-testid="graph-node"][data-name="scores"]');
  await expect(scores).toHaveCount(0);
  await page.getByTestId('graph-search').fill('scores');
  await expect(page.getByTestId('graph-search-count')).toHaveText('–/2');
  await page.getByTestId('graph-search').press('Enter');
  await expect(scores).toHaveCount(1);
  await expect(scores).toHaveClass(/cursor/);
  await expect(page.getByTestId('graph-search-count')).toHaveText('1/2');
  // On screen, inside the viewport, with its path in the breadcrumb.
  const view = (await page.locator('[data-focus-target="graph"]').boundingBox())!;
  const box = (await scores.boundingBox())!;
  expect(box.y).toBeGreaterThanOrEqual(view.y);
  expect(box.y + box.height).toBeLessThanOrEqual(view.y + view.height);
  await expect(page.getByTestId('crumb')).toHaveText([
    '⌂ loss',
    'loss',
    'block',
    'attention',
    'scores',
  ]);
  // The jaxpr row of that equation is the linked one.
  const eqn = await scores.getAttribute('data-eqn-id');
  await expect(page.locator(`[data-testid="jaxpr-eqn"][data-eqn-id="${eqn}"]`)).toHaveAttribute(
    'data-linked',
    'true',
  );
  // Arrow keys follow the edges: up to the box that made its input, down to one that uses it.
  await scores.click();
  const id = await scores.getAttribute('data-node-id');
  await page.keyboard.press('ArrowUp');
  const cursor = page.locator('[data-testid="graph-svg"] .cursor');
  await expect(cursor).toHaveCount(1);
  const up = await cursor.getAttribute('data-node-id');
  expect(up).not.toBe(id);
  await expect(
    page.locator(`[data-testid="graph-edge"][data-source="${up}"][data-target="${id}"]`),
  ).toHaveCount(1);
  await page.keyboard.press('ArrowDown');
  await expect(cursor).toHaveAttribute('data-node-id', id!);
});

test('groups expand and collapse by click and by keyboard; hidden children leave the DOM', async ({
  playground: pg,
  page,
}) => {
  await openProgram(pg);
  const first = page
    .locator('[data-testid="graph-group"][data-expanded="false"][data-kind="scope"]')
    .first();
  const id = await first.getAttribute('data-node-id');
  const group = page.locator(`[data-testid="graph-group"][data-node-id="${id}"]`);
  const before = await pg.graphBoxes.count();
  await group.getByTestId('group-toggle').click();
  await expect(group).toHaveAttribute('data-expanded', 'true');
  await expect.poll(() => pg.graphBoxes.count()).toBeGreaterThan(before);
  const opened = await pg.graphBoxes.count();
  // Keyboard: the frame is selected, Escape folds it, Enter opens it again.
  await group.locator('rect.title').click();
  await page.keyboard.press('Escape');
  await expect(group).toHaveAttribute('data-expanded', 'false');
  await expect(pg.graphBoxes).toHaveCount(before);
  await page.keyboard.press('Enter');
  await expect(group).toHaveAttribute('data-expanded', 'true');
  await expect(pg.graphBoxes).toHaveCount(opened);
  // Arrow keys walk into the group's content along edges.
  await page.keyboard.press('Escape');
  await pg.expandAll();
  expect(await pg.drawnEqns()).toBe(program.card.jaxpr.eqns.length);
  await page.getByTestId('graph-overview').click();
  expect(await pg.graphBoxes.count()).toBeLessThanOrEqual(25);
});

test('an HLO row click lands on its editor line and reveals its graph node, and back', async ({
  playground: pg,
  page,
}) => {
  await openProgram(pg);
  const hlo = program.card.stages.find((s) => s.name === 'hlo')!;
  const link = hlo.rows!.find((r) => r.op_name!.includes('/softmax/'))!;
  await page.getByTestId('tab-stages').click();
  await page.locator('[data-testid="stage-tab"][data-stage="hlo"]').click();
  const row = page
    .locator('[data-testid="stage-eqn"]')
    .filter({ hasText: `fusion.${link.eqn_id!.slice(1)} ` });
  await row.click();
  const line = program.code.split('\n')[link.line! - 1];
  await expect(page.locator('[data-testid="editor"] [data-linked="true"]')).toHaveText(line);
  const node = page.locator(`[data-testid="graph-node"][data-eqn-id="${link.eqn_id}"]`);
  await expect(node).toHaveClass(/active/);
  // Back: selecting a group lights every stage row of its equations.
  await page.mouse.move(0, 0);
  await page.getByTestId('graph-search').fill('softmax');
  await page.getByTestId('graph-search').press('Enter');
  const lit = page.locator('[data-testid="stage-eqn"][data-linked="true"]');
  expect(await lit.count()).toBeGreaterThan(1);
  await expect(lit.first()).toContainText('/softmax/');
});

test('the graph exports as a standalone SVG that parses, and PNG', async ({
  playground: pg,
  page,
}) => {
  await openProgram(pg);
  await page.getByTestId('graph-export').click();
  const [svgFile] = await Promise.all([
    page.waitForEvent('download'),
    page.getByTestId('export-svg').click(),
  ]);
  expect(svgFile.suggestedFilename()).toBe('jit-value_and_grad-loss.svg');
  const svg = readFileSync((await svgFile.path())!, 'utf8');
  const parsed = await page.evaluate((text) => {
    const doc = new DOMParser().parseFromString(text, 'image/svg+xml');
    const err = doc.querySelector('parsererror');
    return {
      err: err?.textContent ?? null,
      root: doc.documentElement.localName,
      texts: [...doc.querySelectorAll('text')].map((t) => t.textContent),
      classes: doc.querySelectorAll('[class]').length,
    };
  }, svg);
  expect(parsed.err).toBeNull();
  expect(parsed.root).toBe('svg');
  expect(parsed.texts).toEqual(expect.arrayContaining(['params', 'loss']));
  expect(parsed.classes).toBe(0);
  await page.getByTestId('graph-export').click();
  const [png] = await Promise.all([
    page.waitForEvent('download'),
    page.getByTestId('export-png').click(),
  ]);
  const bytes = readFileSync((await png.path())!);
  expect(bytes.subarray(1, 4).toString()).toBe('PNG');
});

test('the legend explains the marks, and the empty page offers the examples', async ({
  playground: pg,
  page,
}) => {
  await MockKernel.install(page, { run: () => ({ cards: [] }) });
  await pg.open();
  await expect(page.getByTestId('graph-empty')).toContainText('Run');
  await expect(page.getByTestId('empty-example')).toHaveText(['Demo']);
  await page.getByTestId('graph-legend-toggle').click();
  await expect(page.getByTestId('graph-legend')).toContainText('∇');
  await expect(page.getByTestId('graph-legend')).toContainText('μ');
  await expect(page.getByTestId('graph-legend')).toContainText('edge width');
});

test('every control says what it does (title or aria-describedby)', async ({
  playground: pg,
  page,
}) => {
  await openProgram(pg);
  await page.getByTestId('settings').click();
  await page.getByTestId('graph-export').click();
  const bare = await page.evaluate(() =>
    [
      ...document.querySelectorAll(
        'button, select, input, summary, [role="tab"], [role="separator"]',
      ),
    ]
      .filter((el) => (el as HTMLElement).offsetParent !== null)
      .filter((el) => !el.getAttribute('title')?.trim() && !el.getAttribute('aria-describedby'))
      .map((el) => el.outerHTML.slice(0, 120)),
  );
  expect(bare).toEqual([]);
});
