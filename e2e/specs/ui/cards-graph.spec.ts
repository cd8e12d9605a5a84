import { syntheticCard } from '../../../frontend/src/lib/testing/synthetic';
import { expect, test } from '../../support/fixtures';
import { MockKernel, sample } from '../../support/mockKernel';

const CODE = `import jax\nimport jax.numpy as jnp\n\ndef loss(x):\n    return jnp.sin(x) * x\n\nprint(jax.grad(loss)(1.0))\n`;

test('a run shows its cards, and the graph has one node per equation', async ({
  playground: pg,
  page,
}) => {
  const card = sample('server.trace_card.grad').msg.card;
  const kernel = await MockKernel.install(page, {
    run: () => ({ cards: [card], stdout: '0.84\n' }),
  });
  await pg.open();
  await pg.setCode(CODE);
  expect(await pg.runAndWait()).toBe('done');
  expect(kernel.runs[0].code).toBe(CODE);
  await expect(pg.cards).toHaveCount(1);
  await expect(pg.cards.first()).toHaveAttribute('data-eqn-count', String(card.jaxpr.eqns.length));
  await pg.graphReady();
  await expect(pg.eqnNodes).toHaveCount(card.jaxpr.eqns.length);
  await expect(page.locator('[data-testid="graph-node"][data-kind="input"]')).toHaveCount(
    card.jaxpr.invars.length,
  );
  await expect(pg.jaxprEqns).toHaveCount(card.jaxpr.eqns.length);
  await expect(page.getByTestId('stdout')).toHaveText('0.84\n');
});

test('linked highlighting: graph node ↔ jaxpr equation ↔ editor line', async ({
  playground: pg,
  page,
}) => {
  const card = sample('server.trace_card.grad').msg.card;
  await MockKernel.install(page, { run: () => ({ cards: [card] }) });
  await pg.open();
  await pg.setCode(CODE);
  await pg.runAndWait();
  await pg.graphReady();
  const eqn = card.jaxpr.eqns[0];
  // Hover a graph node: its jaxpr row and its source line light up.
  await page.locator(`[data-testid="graph-node"][data-eqn-id="${eqn.id}"]`).hover();
  await expect(page.locator(`[data-testid="jaxpr-eqn"][data-eqn-id="${eqn.id}"]`)).toHaveAttribute(
    'data-linked',
    'true',
  );
  await expect(page.locator('[data-testid="editor"] [data-linked="true"]')).toHaveCount(1);
  await expect(page.locator('[data-testid="editor"] [data-linked="true"]')).toHaveText(
    CODE.split('\n')[eqn.source.line - 1],
  );
  await expect(page.getByTestId('graph-tooltip')).toContainText(eqn.primitive);
  // Click a jaxpr row: the graph node becomes active.
  await page.mouse.move(0, 0);
  const other = card.jaxpr.eqns[1];
  await page.locator(`[data-testid="jaxpr-eqn"][data-eqn-id="${other.id}"]`).click();
  await expect(page.locator(`[data-testid="graph-node"][data-eqn-id="${other.id}"]`)).toHaveClass(
    /active/,
  );
  // Hover an editor line: every equation from that line lights up in the listing.
  await page
    .locator('[data-testid="editor"] .cm-line')
    .nth(eqn.source.line - 1)
    .hover();
  const fromLine = card.jaxpr.eqns.filter((e: any) => e.source?.line === eqn.source.line).length;
  await expect(page.locator('[data-testid="jaxpr-eqn"][data-linked="true"]')).toHaveCount(fromLine);
});

test('nested sub-jaxprs are groups that collapse and expand', async ({ playground: pg, page }) => {
  const card = syntheticCard({ eqns: 6, nested: 3 });
  await MockKernel.install(page, { run: () => ({ cards: [card] }) });
  await pg.open();
  await pg.runAndWait();
  await pg.graphReady();
  const group = page.locator(`[data-testid="graph-group"][data-eqn-id="${card.jaxpr.eqns[5].id}"]`);
  await expect(group).toHaveAttribute('data-name', 'jit(inner)');
  await pg.expandAll();
  await expect(group).toHaveAttribute('data-expanded', 'true');
  await expect(pg.eqnNodes).toHaveCount(8);
  // Bring it into view through the search box (Enter goes to the first match).
  await page.getByTestId('graph-search').fill('jit(inner)');
  await page.getByTestId('graph-search').press('Enter');
  await group.getByTestId('group-toggle').click();
  await expect(group).toHaveAttribute('data-expanded', 'false');
  // Collapsed children are not in the DOM at all.
  await expect(pg.eqnNodes).toHaveCount(5);
  await group.getByTestId('group-toggle').click();
  await expect(group).toHaveAttribute('data-expanded', 'true');
  await expect(pg.eqnNodes).toHaveCount(8);
});

test('stages pane shows StableHLO, HLO and cost analysis of a jit card', async ({
  playground: pg,
  page,
}) => {
  const card = sample('server.trace_card.jit').msg.card;
  await MockKernel.install(page, { run: () => ({ cards: [card] }) });
  await pg.open();
  await pg.runAndWait();
  await page.getByTestId('tab-stages').click();
  await expect(page.getByTestId('stage-tab')).toHaveCount(card.stages.length);
  await page.locator('[data-testid="stage-tab"][data-stage="stablehlo"]').click();
  await expect(page.getByTestId('stage-body')).toContainText('stablehlo.multiply');
  await page.locator('[data-testid="stage-tab"][data-stage="cost_analysis"]').click();
  await expect(page.getByTestId('cost-table')).toContainText('FLOPs');
  // Arrow keys walk the pipeline along the one strip of tabs (no second control repeats it).
  await expect(page.getByTestId('stage-scrub')).toHaveCount(0);
  await page.keyboard.press('Home');
  for (let i = 0; i < card.stages.length; i++) await page.keyboard.press('ArrowLeft');
  await expect(page.getByTestId('stage-body')).toHaveAttribute('data-stage', card.stages[0].name);
});
