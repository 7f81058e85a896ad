/**
 * The verdict on every 429 against the truth of a limiter whose books are known exactly
 * (`limiter-sim.ts`), with 1, 10 and 100 requests in flight. A verdict may be uncertain; it may
 * never swap premature and expected.
 */
import { describe, expect, it } from 'vitest';
import { createRateLimitAnalyser, type RateLimitSnapshot } from '../../src/collect/rate-limit-analyser.js';
import type { ThrottleClass } from '../../src/core/types.js';
import { fixedWindow, inFlightAt, simulate, slidingLog, tokenBucket, type Limiter, type SimRequest } from './limiter-sim.js';
import { settled } from './settle-helper.js';

interface Tally {
  readonly truthPremature: number;
  readonly truthExpected: number;
  readonly premature: number;
  readonly expected: number;
  readonly uncertain: number;
  /** Truly premature judged expected, or truly expected judged premature. */
  readonly swapped: number;
  readonly snap: RateLimitSnapshot;
}

function judge(requests: readonly SimRequest[]): Tally {
  let k = 0;
  const a = createRateLimitAnalyser({ runStartNs: 0, inFlight: () => inFlightAt(requests, k) });
  const t = { truthPremature: 0, truthExpected: 0, premature: 0, expected: 0, uncertain: 0, swapped: 0 };
  for (k = 0; k < requests.length; k++) a.observe((requests[k] as SimRequest).sample);
  // The verdicts the report holds: settled on all of the evidence.
  const { bySend, snap } = settled(a.snapshot());
  for (const r of requests) {
    if (r.sample.status !== 429) continue;
    const v: ThrottleClass = bySend.get(Math.round(r.sample.startNs / 1000)) ?? 'none';
    if (r.premature) t.truthPremature++;
    else t.truthExpected++;
    if (v === 'premature') t.premature++;
    else if (v === 'expected') t.expected++;
    else t.uncertain++;
    if ((v === 'premature' && !r.premature) || (v === 'expected' && r.premature)) t.swapped++;
  }
  return { ...t, snap };
}

/** Service time giving about `inFlight` requests in flight at `ratePerS`. */
const serviceMsFor = (inFlight: number, ratePerS: number): number => Math.max(5, (inFlight * 1000) / ratePerS);

const LYING: { name: string; make: () => Limiter; ratePerS: number; durationS: number; truth: [number, number] }[] = [
  // Limiters that refuse before their advertised limit (windows aligned to the run's start, so
  // the truth is per whole window): throttles after 25 though it advertises 40 per 3 s, 25/s for
  // 12 s (4 windows × 15 premature, 35 expected); …
  { name: 'admits 25 of an advertised 40 per 3 s, 25/s', make: () => fixedWindow({ limit: 40, windowS: 3, admits: 25 }), ratePerS: 25, durationS: 12, truth: [60, 140] },
  // … throttles after 60 of an advertised 100 per 5 s, at 30/s for 8 s (40 + 30 premature); …
  { name: 'admits 60 of an advertised 100 per 5 s, 30/s', make: () => fixedWindow({ limit: 100, windowS: 5, admits: 60 }), ratePerS: 30, durationS: 8, truth: [70, 50] },
  // … throttles after 97 of 100 per 4 s at 40/s: Remaining said 3 were left.
  { name: 'admits 97 of an advertised 100 per 4 s, 40/s', make: () => fixedWindow({ limit: 100, windowS: 4, admits: 97 }), ratePerS: 40, durationS: 12, truth: [9, 180] },
];

describe('premature, expected and uncertain 429s against known truth', () => {
  for (const c of LYING) {
    it(`${c.name}: exact with one request in flight`, () => {
      const t = judge(simulate(c.make(), { ratePerS: c.ratePerS, durationS: c.durationS, serviceMs: 5 }));
      expect([t.truthPremature, t.truthExpected]).toEqual(c.truth);
      expect([t.premature, t.expected, t.uncertain]).toEqual([...c.truth, 0]);
    });
    for (const inFlight of [10, 100]) {
      it(`${c.name}: never swapped with ${inFlight} in flight`, () => {
        const t = judge(simulate(c.make(), { ratePerS: c.ratePerS, durationS: c.durationS, serviceMs: serviceMsFor(inFlight, c.ratePerS) }));
        expect(t.truthPremature).toBe(c.truth[0]);
        expect(t.swapped).toBe(0);
        expect(t.premature + t.expected + t.uncertain).toBe(t.truthPremature + t.truthExpected);
        // Early throttling is still seen: at least some of it is called premature.
        expect(t.premature).toBeGreaterThan(0);
        expect(t.snap.uncertain429).toBe(t.uncertain);
      });
    }
  }

  const HONEST: { name: string; make: () => Limiter }[] = [
    { name: 'fixed window', make: () => fixedWindow({ limit: 40, windowS: 4 }) },
    { name: 'sliding log', make: () => slidingLog({ limit: 40, windowS: 5 }) },
    { name: 'sliding log whose Reset says when a slot frees', make: () => slidingLog({ limit: 40, windowS: 5, reset: 'slot-frees' }) },
    { name: 'token bucket', make: () => tokenBucket({ limit: 40, windowS: 5 }) },
    { name: 'token bucket with a burst', make: () => tokenBucket({ limit: 40, windowS: 5, burst: 20 }) },
  ];
  for (const h of HONEST) {
    for (const inFlight of [1, 10, 100]) {
      it(`an honest ${h.name} at 150 % is never called premature (${inFlight} in flight)`, () => {
        const ratePerS = 12;
        const t = judge(simulate(h.make(), { ratePerS, durationS: 20, serviceMs: inFlight === 1 ? 5 : serviceMsFor(inFlight, ratePerS) }));
        expect(t.truthExpected).toBeGreaterThan(20);
        expect(t.premature).toBe(0);
        if (inFlight === 1) expect(t.uncertain).toBe(0);
      });
    }
  }

  it('a rolling limiter is told apart from fixed windows, and its rising Remaining is no finding', () => {
    const t = judge(simulate(tokenBucket({ limit: 40, windowS: 5 }), { ratePerS: 12, durationS: 20, serviceMs: 5 }));
    expect(t.snap.rolling).toBe(true);
    expect(t.snap.headerViolations['remaining-increased-within-window']).toBeUndefined();
    expect(judge(simulate(fixedWindow({ limit: 40, windowS: 4 }), { ratePerS: 12, durationS: 20, serviceMs: 5 })).snap.rolling).toBeUndefined();
  });

  it('a Remaining that drifts above the truth is found: premature 429s and a header finding', () => {
    const t = judge(simulate(fixedWindow({ limit: 40, windowS: 4, drift: 3 }), { ratePerS: 15, durationS: 12, serviceMs: 5 }));
    // Each window's answer for the 40th request said 3 were left: the next three 429s are premature.
    expect(t.premature).toBe(9);
    expect(t.snap.headerViolations['remaining-above-count']).toBeGreaterThan(0);
  });

  it('a Remaining of 0 after 1 of an advertised 1,000 is found, not passed', () => {
    const t = judge(simulate(fixedWindow({ limit: 1000, windowS: 60, admits: 1 }), { ratePerS: 20, durationS: 7, serviceMs: 5 }));
    expect(t.premature).toBe(t.truthPremature);
    expect(t.premature).toBe(139);
  });

  it('with the token shared by another process, evidence of early throttling must hold for both', () => {
    // Two processes at 25/s each behind one limiter; this one sees every other request.
    const both = simulate(fixedWindow({ limit: 40, windowS: 3, admits: 25 }), { ratePerS: 50, durationS: 12, serviceMs: 5 });
    const mine = both.filter((r) => Math.round(r.sample.startNs / 2e7) % 2 === 0);
    const run = (sharers: number) => {
      let k = 0;
      const a = createRateLimitAnalyser({ runStartNs: 0, sharers, inFlight: () => inFlightAt(mine, k) });
      let swapped = 0;
      for (k = 0; k < mine.length; k++) a.observe((mine[k] as SimRequest).sample);
      const s = settled(a.snapshot());
      for (const r of mine) {
        if (r.sample.status !== 429) continue;
        const v = s.bySend.get(Math.round(r.sample.startNs / 1000));
        if ((v === 'premature' && !r.premature) || (v === 'expected' && r.premature)) swapped++;
      }
      return { swapped, snap: s.snap };
    };
    const shared = run(2);
    expect(shared.swapped).toBe(0);
    expect(shared.snap.premature429).toBeGreaterThan(0);
    // Judged as if alone, this process's count would call the other's share of the limit early.
    expect(run(1).swapped).toBeGreaterThan(0);
  });
});
