import { describe, expect, it } from 'vitest';
import { createResetSemanticsTracker } from '../../src/collect/reset-semantics.js';

const S = 1e9;

function feed(values: readonly (readonly [reset: number, atS: number])[]): string {
  const t = createResetSemanticsTracker();
  for (const [reset, atS] of values) t.observe(reset, atS * S);
  return t.result();
}

describe('reset semantics', () => {
  it('reads a countdown within a 60 s window as delta seconds', () => {
    expect(feed([[60, 0], [57, 3], [52, 8], [40, 20], [30, 30]])).toBe('delta-seconds');
  });

  it('does not take a constant window length for a countdown', () => {
    expect(feed([[60, 0], [60, 3], [60, 8], [60, 20], [60, 30]])).toBe('unknown');
  });

  it('reads values of 1 in one-second windows, which cannot show a countdown, as delta seconds', () => {
    const values = Array.from({ length: 20 }, (_, i) => [1, i * 0.5] as const);
    expect(feed(values)).toBe('delta-seconds');
  });

  it('reads Unix seconds as epoch seconds', () => {
    expect(feed([[1_795_000_060, 0], [1_795_000_060, 3], [1_795_000_120, 61]])).toBe('epoch-seconds');
  });

  it('calls Unix milliseconds unknown', () => {
    expect(feed([[1_795_000_060_000, 0], [1_795_000_060_000, 3]])).toBe('unknown');
  });
});
