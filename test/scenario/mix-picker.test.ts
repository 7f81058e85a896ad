import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../../src/core/errors.js';
import type { OpName } from '../../src/core/ops.js';
import { createMixPicker, resolveScenario, type ResolvedMixEntry } from '../../src/scenario/index.js';

function mixOf(weights: Partial<Record<OpName, number>>): readonly ResolvedMixEntry[] {
  return resolveScenario({
    name: 'm',
    tier: 'pro',
    load: { rate: 1, duration: 1000 },
    mix: Object.entries(weights).map(([op, weight]) => ({ op, weight })),
  }).mix;
}

function counts(pick: () => ResolvedMixEntry, n: number): Map<string, number> {
  const c = new Map<string, number>();
  for (let i = 0; i < n; i++) {
    const op = pick().op;
    c.set(op, (c.get(op) ?? 0) + 1);
  }
  return c;
}

describe('createMixPicker', () => {
  it('keeps exact long-run proportions, within one pick per entry at any prefix', () => {
    const mix = mixOf({ run: 40, stream: 30, listFlows: 15, getFlow: 10, getRun: 5 });
    const pick = createMixPicker(mix, 123);
    const c = new Map<string, number>();
    let worst = 0;
    for (let n = 1; n <= 10_000; n++) {
      const op = pick().op;
      c.set(op, (c.get(op) ?? 0) + 1);
      for (const e of mix) worst = Math.max(worst, Math.abs((c.get(e.op) ?? 0) - n * e.weight));
    }
    expect(worst).toBeLessThan(2);
    expect(c.get('run')).toBe(4000);
    expect(c.get('getRun')).toBe(500);
  });

  it('interleaves instead of clumping', () => {
    const pick = createMixPicker(mixOf({ run: 1, stream: 1 }), 5);
    const seq = Array.from({ length: 20 }, () => pick().op);
    for (let i = 1; i < seq.length; i++) expect(seq[i]).not.toBe(seq[i - 1]);
  });

  it('repeats the sequence for a seed, and other seeds start elsewhere', () => {
    const mix = mixOf({ run: 3, stream: 2, listFlows: 2, getFlow: 1 });
    const seqOf = (seed: number): string[] => {
      const pick = createMixPicker(mix, seed);
      return Array.from({ length: 40 }, () => pick().op);
    };
    expect(seqOf(9)).toEqual(seqOf(9));
    const distinct = new Set([1, 2, 3, 4, 5, 6, 7, 8].map((s) => seqOf(s).join(',')));
    expect(distinct.size).toBeGreaterThan(1);
    // Whatever the seed, proportions hold.
    for (const seed of [1, 2, 3]) expect(counts(createMixPicker(mix, seed), 8000).get('run')).toBe(3000);
  });

  it('returns the entry objects of the mix and handles a single entry', () => {
    const mix = mixOf({ stream: 2 });
    const pick = createMixPicker(mix);
    expect(pick()).toBe(mix[0]);
    expect(pick()).toBe(mix[0]);
  });

  it('rejects an empty mix and bad weights', () => {
    expect(() => createMixPicker([])).toThrow(InvalidArgumentError);
    const [entry] = mixOf({ run: 1 });
    expect(() => createMixPicker([{ ...(entry as ResolvedMixEntry), weight: 0 }])).toThrow(InvalidArgumentError);
  });
});
