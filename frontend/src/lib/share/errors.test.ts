import { describe, expect, it } from 'vitest';
import { describeShareFailure, ShareError } from './errors';
import { readLocation } from './link';

describe('share failures', () => {
  it('turns every way a #code= link can be damaged into the garbled message', async () => {
    for (const hash of ['#code=%%%not-base64', '#code=AAAA', '#code=abc']) {
      const err = await readLocation('/', '', hash).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(ShareError);
      const f = describeShareFailure(err);
      expect(f.problem).toBe('garbled');
      expect(f.title).toBe('This link is damaged');
      expect(f.detail).not.toMatch(/atob|Failed to execute/);
    }
  });

  it('describes a missing share without HTTP jargon', () => {
    const f = describeShareFailure(new ShareError('not_found', '/api/share/x: HTTP 404'));
    expect(f.title).toBe('This share link does not exist');
    expect(f.detail).not.toMatch(/HTTP|404/);
  });
});
