import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { closestName, editDistanceWithin } from '../../src/core/edit-distance.js';

/** The textbook table, in full: the truth the banded walk is checked against. */
function osa(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const row = d[i] as number[];
      const up = d[i - 1] as number[];
      row[j] = Math.min((up[j] as number) + 1, (row[j - 1] as number) + 1, (up[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) row[j] = Math.min(row[j] as number, ((d[i - 2] as number[])[j - 2] as number) + 1);
    }
  }
  return (d[a.length] as number[])[b.length] as number;
}

describe('editDistanceWithin', () => {
  it('is the full distance when within max, and max + 1 beyond it', () => {
    const word = fc.string({ unit: fc.constantFrom('a', 'b', 'c', '.', 'p'), maxLength: 14 });
    fc.assert(
      fc.property(word, word, fc.integer({ min: 0, max: 4 }), (a, b, max) => {
        const truth = osa(a, b);
        expect(editDistanceWithin(a, b, max)).toBe(truth <= max ? truth : max + 1);
      }),
      { numRuns: 3000 },
    );
  });

  it('counts a swap of neighbours as one edit', () => {
    expect(editDistanceWithin('laod', 'load', 2)).toBe(1);
    expect(editDistanceWithin('listFlows.latncy.p99', 'listFlows.latency.p99', 2)).toBe(1);
    expect(editDistanceWithin('x'.repeat(100_000), 'availability', 2)).toBe(3);
  });

  it('closestName picks the nearest within a third of the typed length', () => {
    expect(closestName('duraton', ['rate', 'duration'])).toBe('duration');
    expect(closestName('zzzz', ['duration', 'rate'])).toBeUndefined();
  });
});
