import { describe, expect, it } from 'vitest';
import { lodAt, MIN_LABEL_PX, READABLE_K, READABLE_PX, SMALLEST_FONT } from './lod';
import { FONT } from './summary';

describe('level of detail', () => {
  it('opens every label at ≥ 10 px', () => {
    expect(SMALLEST_FONT * READABLE_K).toBeGreaterThanOrEqual(READABLE_PX);
    for (const px of Object.values(FONT)) expect(px).toBeGreaterThanOrEqual(SMALLEST_FONT);
    expect(lodAt(READABLE_K)).toEqual({ names: true, details: true, edgeLabels: true });
  });

  it('hides a class of labels once it would be drawn below 8 px', () => {
    const k = (MIN_LABEL_PX - 0.01) / FONT.detail;
    expect(lodAt(k)).toEqual({ names: true, details: false, edgeLabels: false });
    expect(lodAt((MIN_LABEL_PX - 0.01) / FONT.name).names).toBe(false);
  });
});
