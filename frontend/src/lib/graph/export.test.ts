import Ajv2020 from 'ajv/dist/2020';
import { describe, expect, it } from 'vitest';
import schema from '$schemas/generated/protocol.schema.json';
import sampleGrad from '$schemas/examples/valid/server.trace_card.grad.json';
import { syntheticCard, syntheticProgram } from '../testing/synthetic';
import { cardJson, fileStem } from './export';

const ajv = new Ajv2020({ strict: false, discriminator: true, validateFormats: false });
ajv.addSchema(schema, 'protocol');
const validCard = ajv.getSchema('protocol#/$defs/TraceCard')!;

describe('card export', () => {
  it('writes cards that validate against the protocol JSON Schema', () => {
    const cards = [
      sampleGrad.msg.card,
      syntheticProgram({ layers: 2 }).card,
      syntheticCard({ eqns: 6, nested: 3 }),
    ];
    for (const card of cards) {
      const ok = validCard(JSON.parse(cardJson(card as never)));
      expect(ok, JSON.stringify(validCard.errors?.slice(0, 2))).toBe(true);
    }
  });

  it('rejects what is not a card (the check can fail)', () => {
    const card = JSON.parse(cardJson(syntheticCard({ eqns: 2 })));
    delete card.jaxpr;
    expect(validCard(card)).toBe(false);
  });

  it('names files after the card', () => {
    expect(fileStem('jit(value_and_grad(loss))')).toBe('jit-value_and_grad-loss');
    expect(fileStem('((()))')).toBe('graph');
  });
});
