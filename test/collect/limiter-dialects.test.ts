/**
 * Every limiter dialect of docs/measuring.md ("What each limiter lets flowgauge conclude"), honest
 * and lying, against its own books (`limiter-sim.ts`): an honest limiter is never accused, a lying
 * one is found whatever its shape, and no 429 is ever called the opposite of its truth. The
 * verdicts are the settled ones, as the report holds them.
 */
import { describe, expect, it } from 'vitest';
import { createRateLimitAnalyser, type RateLimitSnapshot } from '../../src/collect/rate-limit-analyser.js';
import { EPOCH0, fixedWindow, inFlightAt, movingReset, simulate, slidingLog, tokenBucket, type Limiter, type SimRequest } from './limiter-sim.js';
import { settled } from './settle-helper.js';
import { MS, S, rl, sample } from './samples.js';
import type { RequestSample } from '../../src/core/types.js';

interface Tally {
  readonly refused: number;
  readonly truthPremature: number;
  readonly premature: number;
  readonly expected: number;
  readonly uncertain: number;
  /** Truly premature called expected, or truly expected called premature. */
  readonly swapped: number;
  readonly snap: RateLimitSnapshot;
}

/** The run's tier when a dialect sends no limit: `limit` per `windowS`. */
type Contract = { readonly limit: number; readonly windowMs: number };

function judge(requests: readonly SimRequest[], contract?: Contract): Tally {
  let k = 0;
  const a = createRateLimitAnalyser({ runStartNs: 0, runStartWallMs: EPOCH0 * 1000, inFlight: () => inFlightAt(requests, k), ...(contract === undefined ? {} : { contract }) });
  for (k = 0; k < requests.length; k++) a.observe((requests[k] as SimRequest).sample);
  const { bySend, snap } = settled(a.snapshot(), EPOCH0 * 1000);
  const t = { refused: 0, truthPremature: 0, premature: 0, expected: 0, uncertain: 0, swapped: 0 };
  for (const r of requests) {
    if (r.sample.status !== 429) continue;
    t.refused++;
    if (r.premature) t.truthPremature++;
    const v = bySend.get(Math.round(r.sample.startNs / 1000));
    if (v === 'premature') t.premature++;
    else if (v === 'expected') t.expected++;
    else t.uncertain++;
    if ((v === 'premature' && !r.premature) || (v === 'expected' && r.premature)) t.swapped++;
  }
  return { ...t, snap };
}

interface Dialect {
  readonly name: string;
  readonly honest: () => Limiter;
  readonly lying: () => Limiter;
  /** The client's rate against the honest limiter (over its limit) and against the liar. */
  readonly honestRate: number;
  readonly lyingRate: number;
  /** The scenario's tier, for dialects that state no limit. */
  readonly contract?: Contract;
}

// 40 per 4 s is 10/s: the client offers the honest limiters 15/s (150 %). The liars advertise
// 40 and admit 25 (or refuse past their reset); where the client is under the limit at every
// refusal (8/s is 32 per 4 s), every refusal is premature.
const DIALECTS: readonly Dialect[] = [
  {
    name: 'fixed window, delta Reset',
    honest: () => fixedWindow({ limit: 40, windowS: 4 }),
    lying: () => fixedWindow({ limit: 40, windowS: 4, resetLagS: 2 }),
    honestRate: 15,
    lyingRate: 15,
  },
  {
    name: 'fixed window, epoch Reset',
    honest: () => fixedWindow({ limit: 40, windowS: 4, reset: 'epoch' }),
    lying: () => fixedWindow({ limit: 40, windowS: 4, reset: 'epoch', admits: 25 }),
    honestRate: 15,
    lyingRate: 15,
  },
  {
    name: 'sliding log counting admissions',
    honest: () => slidingLog({ limit: 40, windowS: 4 }),
    lying: () => slidingLog({ limit: 40, windowS: 4, admits: 25 }),
    honestRate: 15,
    lyingRate: 8,
  },
  {
    name: 'sliding log counting attempts',
    honest: () => slidingLog({ limit: 40, windowS: 4, counts: 'attempts' }),
    lying: () => slidingLog({ limit: 40, windowS: 4, counts: 'attempts', admits: 25 }),
    honestRate: 15,
    lyingRate: 8,
  },
  {
    name: 'token bucket',
    honest: () => tokenBucket({ limit: 40, windowS: 4, burst: 10 }),
    lying: () => tokenBucket({ limit: 40, windowS: 4, burst: 10, admits: 20, refillShare: 0.5 }),
    honestRate: 15,
    lyingRate: 8,
  },
  {
    name: 'Retry-After only',
    honest: () => fixedWindow({ limit: 40, windowS: 4, headers: 'retry-after' }),
    lying: () => fixedWindow({ limit: 40, windowS: 4, headers: 'retry-after', admits: 25 }),
    honestRate: 15,
    lyingRate: 8,
    contract: { limit: 40, windowMs: 4000 },
  },
  {
    name: 'no headers',
    honest: () => fixedWindow({ limit: 40, windowS: 4, headers: 'none' }),
    lying: () => fixedWindow({ limit: 40, windowS: 4, headers: 'none', admits: 25 }),
    honestRate: 15,
    lyingRate: 8,
    contract: { limit: 40, windowMs: 4000 },
  },
  {
    name: "a gateway's HTML 429",
    honest: () => fixedWindow({ limit: 40, windowS: 4, headers: 'gateway' }),
    lying: () => fixedWindow({ limit: 40, windowS: 4, headers: 'gateway', admits: 25 }),
    honestRate: 15,
    lyingRate: 8,
    contract: { limit: 40, windowMs: 4000 },
  },
];

const DURATION_S = 16;

/** Service time giving about `inFlight` requests in flight at `ratePerS`. */
const serviceMsFor = (inFlight: number, ratePerS: number): number => (inFlight === 1 ? 5 : (inFlight * 1000) / ratePerS);

describe('each limiter dialect, honest and lying, against its books', () => {
  for (const d of DIALECTS) {
    for (const inFlight of [1, 10]) {
      it(`${d.name}: an honest limiter is never accused (${inFlight} in flight)`, () => {
        const t = judge(simulate(d.honest(), { ratePerS: d.honestRate, durationS: DURATION_S, serviceMs: serviceMsFor(inFlight, d.honestRate) }), d.contract);
        expect(t.refused, 'the limiter refused some').toBeGreaterThan(10);
        expect(t.truthPremature).toBe(0);
        expect(t.premature).toBe(0);
        expect(t.snap.headerViolations['reset-not-honoured']).toBeUndefined();
        expect(t.snap.headerViolations['remaining-below-count']).toBeUndefined();
      });
      it(`${d.name}: a lying limiter is found, and no 429 swaps its truth (${inFlight} in flight)`, () => {
        const t = judge(simulate(d.lying(), { ratePerS: d.lyingRate, durationS: DURATION_S, serviceMs: serviceMsFor(inFlight, d.lyingRate) }), d.contract);
        expect(t.truthPremature, 'the liar refused early').toBeGreaterThan(5);
        expect(t.swapped).toBe(0);
        expect(t.premature).toBeGreaterThan(0);
        if (inFlight === 1) expect(t.premature).toBeGreaterThanOrEqual(t.truthPremature / 2);
      });
    }
  }

  it('a limiter that rounds its Reset and Retry-After down (its promises up to a second early) is not accused for it', () => {
    for (const headers of ['all', 'retry-after'] as const) {
      for (const inFlight of [1, 10]) {
        const t = judge(simulate(fixedWindow({ limit: 40, windowS: 4, headers, round: 'down' }), { ratePerS: 15, durationS: DURATION_S, serviceMs: serviceMsFor(inFlight, 15) }), { limit: 40, windowMs: 4000 });
        expect(t.refused, headers).toBeGreaterThan(10);
        expect(t.premature, `${headers}, ${inFlight} in flight`).toBe(0);
        expect(t.snap.headerViolations['reset-not-honoured']).toBeUndefined();
      }
    }
  });

  it('only the gateway dialect says something in front of the service answered', () => {
    const gateway = DIALECTS.find((d) => d.name.includes('gateway')) as Dialect;
    for (const d of DIALECTS) {
      const t = judge(simulate(d.honest(), { ratePerS: d.honestRate, durationS: DURATION_S, serviceMs: 5 }), d.contract);
      if (d === gateway) expect(t.snap.gateway429).toBe(t.refused);
      else expect(t.snap.gateway429, d.name).toBe(0);
    }
  });
});

describe('a service that counts a request when it arrives and writes its headers when it answers', () => {
  it("is not accused when a long run counted in one window answers with the next window's headers", () => {
    // 10 per 2 s. Nine quick admissions from 0.1 s, then a run sent at 1.9 s (the 10th, counted on
    // arrival) whose answer at 2.1 s carries the next window's headers; a request at 1.95 s is the
    // 11th in its window: refused, as it should be.
    const samples: RequestSample[] = [];
    for (let k = 0; k < 9; k++) {
      const t = (0.1 + 0.2 * k) * S;
      samples.push(sample({ startNs: t, intendedNs: t, headersNs: t + 5 * MS, endNs: t + 5 * MS, rateLimit: rl(10, 9 - k, Math.ceil(2 - t / S)) }));
    }
    samples.push(sample({ startNs: 1.95 * S, intendedNs: 1.95 * S, headersNs: 1.953 * S, endNs: 1.953 * S, status: 429, errorCode: 'RATE_LIMITED', rateLimit: rl(10, 0, 1) }));
    samples.push(sample({ startNs: 1.9 * S, intendedNs: 1.9 * S, headersNs: 2.1 * S, endNs: 2.1 * S, rateLimit: rl(10, 10, 2) }));
    for (let k = 0; k < 5; k++) {
      const t = (2.3 + 0.2 * k) * S;
      samples.push(sample({ startNs: t, intendedNs: t, headersNs: t + 5 * MS, endNs: t + 5 * MS, rateLimit: rl(10, 9 - k, Math.ceil(4 - t / S)) }));
    }
    const a = createRateLimitAnalyser({ runStartNs: 0 });
    for (const x of samples) a.observe(x);
    const { snap } = settled(a.snapshot());
    expect(snap.responses429).toBe(1);
    expect(snap.premature429).toBe(0);
    expect(snap.headerViolations['remaining-below-count']).toBeUndefined();
  });
});

describe("issue 39's limiters", () => {
  it('a Reset that lies (refusals go on 5 s past the reset it promised): each refusal after it is premature, with reset-not-honoured', () => {
    // 40 per 10 s at 8/s: 40 arrive in 5 s, the 40 refused in the next 5 s are expected; the
    // counter clears 5 s after the advertised reset, so the next window's first 40 are refused early.
    const t = judge(simulate(fixedWindow({ limit: 40, windowS: 10, resetLagS: 5 }), { ratePerS: 8, durationS: 30, serviceMs: 5 }));
    expect(t.truthPremature).toBeGreaterThanOrEqual(30);
    expect(t.premature).toBe(t.truthPremature);
    expect(t.swapped).toBe(0);
    expect(t.snap.headerViolations['reset-not-honoured']).toBeGreaterThan(0);
  });

  it('a sliding log that throttles after 14 while advertising 20: every refusal premature, one verdict for the same evidence', () => {
    // 20 per 5 s advertised; 3.4/s is 17 per 5 s, under the limit, yet it admits only 14.
    const t = judge(simulate(slidingLog({ limit: 20, windowS: 5, admits: 14 }), { ratePerS: 3.4, durationS: 60, serviceMs: 5 }));
    expect(t.refused).toBeGreaterThan(20);
    expect(t.truthPremature).toBe(t.refused);
    expect(t.premature).toBe(t.refused);
    expect(t.snap.rolling).toBe(true);
  });

  it('a Limit of 1000, Remaining 0 after one request and a Reset that moves with it: a liar, every refusal premature', () => {
    const t = judge(simulate(movingReset({ limit: 1000, windowS: 60, admits: 1 }), { ratePerS: 20, durationS: 7, serviceMs: 5 }));
    expect(t.refused).toBe(139);
    expect(t.premature).toBe(139);
    expect(t.expected).toBe(0);
    expect(t.snap.headerViolations['remaining-below-count']).toBeGreaterThan(0);
  });

  it('Retry-After only, enforcing exactly the tier (100 per minute): none premature, none said to be a gateway', () => {
    const t = judge(simulate(fixedWindow({ limit: 100, windowS: 60, headers: 'retry-after' }), { ratePerS: 3, durationS: 90, serviceMs: 5 }), { limit: 100, windowMs: 60_000 });
    expect(t.refused).toBeGreaterThan(60);
    expect(t.premature).toBe(0);
    expect(t.snap.gateway429).toBe(0);
    // The second window's refusals follow the limiter's reopening: over the tier under every placement.
    expect(t.expected).toBeGreaterThan(0);
  });
});
