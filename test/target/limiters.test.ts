/**
 * The limiter shapes (fixed, sliding, token-bucket) and the two lying faults (throttleAfter,
 * remainingDrift), driven at known instants of a fake clock. Every answer is compared with a
 * small model of the documented behaviour written here, independently of src/target/limiters.ts
 * (plain arrays and fractional tokens rather than a ring and a debt), plus literal spot checks.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createFakeClock, type FakeClock } from '../../src/core/clock.js';
import { ConfigError, type ConfigIssue } from '../../src/core/errors.js';
import { parseReferenceConfig, resolveReferenceOptions, type ReferenceService, type ReferenceServiceOptions } from '../../src/target/index.js';
import { call, closeAll, header, ms, start, type Reply } from './helpers.js';

afterEach(closeAll);

const WALL = Date.UTC(2026, 0, 1, 12, 0, 0);

/** What one answer said about the limit. `retryAfter` only on 429s. */
interface Answer {
  readonly status: number;
  readonly limit: number;
  readonly remaining: number;
  readonly reset: number;
  readonly retryAfter?: number;
}

function answerOf(r: Reply): Answer {
  const ra = header(r, 'retry-after');
  return {
    status: r.status,
    limit: Number(header(r, 'x-ratelimit-limit')),
    remaining: Number(header(r, 'x-ratelimit-remaining')),
    reset: Number(header(r, 'x-ratelimit-reset')),
    ...(ra === undefined ? {} : { retryAfter: Number(ra) }),
  };
}

/** One `GET /flows` per instant (ms on the fake clock, ascending). */
async function drive(s: ReferenceService, clock: FakeClock, token: string, atMs: readonly number[]): Promise<Answer[]> {
  const out: Answer[] = [];
  for (const t of atMs) {
    clock.advanceTo(ms(t));
    out.push(answerOf(await call(s.baseUrl, 'GET', '/flows', { token })));
  }
  return out;
}

/** A model answers one request at `t` ms. */
type Model = (t: number) => Answer;

const ok = (limit: number, remaining: number, reset: number): Answer => ({ status: 200, limit, remaining, reset });
const refused = (limit: number, reset: number, retryAfter: number): Answer => ({ status: 429, limit, remaining: 0, reset, retryAfter });

/** Fixed window, opened by the first request after the last closed; `enforced` < limit models throttleAfter. */
function fixedModel(limit: number, windowMs: number, enforced = limit): Model {
  let end = -Infinity;
  let used = 0;
  return (t) => {
    if (t >= end) {
      end = t + windowMs;
      used = 0;
    }
    const reset = Math.ceil((end - t) / 1000);
    if (used < enforced) return ok(limit, limit - ++used, reset);
    return refused(limit, reset, reset);
  };
}

/** Sliding log: admitted while fewer than `enforced` were admitted in the last `windowMs`. */
function slidingModel(limit: number, windowMs: number, enforced = limit): Model {
  let log: number[] = [];
  const within = (at: number): number[] => log.filter((s) => at - s < windowMs);
  return (t) => {
    log = within(t);
    if (log.length < enforced) {
      log.push(t);
      return ok(limit, limit - log.length, Math.ceil(((log[0] as number) + windowMs - t) / 1000));
    }
    // The first whole second from now at which the request would be admitted.
    let wait = 1;
    while (log.filter((s) => t + wait * 1000 - s < windowMs).length >= enforced) wait++;
    return refused(limit, Math.ceil(((log[0] as number) + windowMs - t) / 1000), wait);
  };
}

/**
 * Token bucket with fractional tokens, full at start. Exact in floats because the tests pick
 * `limit / windowMs` as a power of two per ms. A throttled bucket (`enforced` < capacity) never
 * hands out its top `capacity − enforced` tokens, though the headers count them.
 */
function bucketModel(limit: number, burst: number, windowMs: number, enforced = limit + burst): Model {
  const cap = limit + burst;
  const perMs = limit / windowMs;
  const hidden = cap - enforced;
  let tokens = cap;
  let last = 0;
  return (t) => {
    tokens = Math.min(cap, tokens + (t - last) * perMs);
    last = t;
    const reset = (): number => Math.ceil((cap - tokens) / perMs / 1000);
    if (tokens - hidden >= 1) {
      tokens -= 1;
      return ok(cap, Math.floor(tokens), reset());
    }
    let wait = 1;
    while (Math.min(cap, tokens + wait * 1000 * perMs) - hidden < 1) wait++;
    return refused(cap, reset(), wait);
  };
}

const modelled = (model: Model, atMs: readonly number[]): Answer[] => atMs.map(model);

// 30/min scaled to a 10 s window: 5 per window; the anonymous (free) limit is 17.
const TEN_S = { windowMs: 10_000 } as const;
const FIVE = { t: { account: 'a', tier: { limitPerMinute: 30 } } } as const;
// 15/min scaled to 16.384 s: 4 per window, one token every 4.096 s (2^-12 tokens per ms).
const BUCKET_WINDOW_MS = 16_384;
const FOUR = { t: { account: 'a', tier: { limitPerMinute: 15 } } } as const;

/** `n` ascending instants (ms) with gaps of 0 to `maxGapMs`, from a fixed-seed LCG: irregular but repeatable. */
function schedule(n: number, maxGapMs: number, seed: number): number[] {
  const out: number[] = [];
  let x = seed;
  let t = 0;
  for (let i = 0; i < n; i++) {
    x = (Math.imul(x, 1_103_515_245) + 12_345) >>> 0;
    t += (x >>> 8) % (maxGapMs + 1);
    out.push(t);
  }
  return out;
}

async function service(options: ReferenceServiceOptions): Promise<{ s: ReferenceService; clock: FakeClock }> {
  const clock = createFakeClock({ wallStartMs: WALL });
  const s = await start({ clock, latency: 'none', ...options });
  return { s, clock };
}

describe('fixed window (default shape)', () => {
  it('matches the model across two window openings', async () => {
    const { s, clock } = await service({ rateLimit: TEN_S, tokens: FIVE });
    const times = [0, 100, 200, 1000, 2500, 2600, 9999, 10_000, 10_500, 12_000, 19_999, 20_000, 20_001];
    const seen = await drive(s, clock, 't', times);
    expect(seen).toEqual(modelled(fixedModel(5, 10_000), times));
    expect(seen.map((a) => a.status)).toEqual([200, 200, 200, 200, 200, 429, 429, 200, 200, 200, 200, 200, 200]);
    expect(seen[5]).toEqual({ status: 429, limit: 5, remaining: 0, reset: 8, retryAfter: 8 });
    expect(s.stats().rateLimited).toBe(2);
  });
});

describe('long irregular schedules', () => {
  // 40 per minute at ~1.5 s a request: long runs of admissions, refusals and recoveries. For the
  // sliding log this also grows its ring (16, 32, 40 slots) and wraps it many times.
  const FORTY = { t: { account: 'a', tier: { limitPerMinute: 40 } } } as const;
  const times = schedule(400, 3000, 7);

  it('fixed', async () => {
    const { s, clock } = await service({ tokens: FORTY });
    const seen = await drive(s, clock, 't', times);
    expect(seen).toEqual(modelled(fixedModel(40, 60_000), times));
    expect(seen.some((a) => a.status === 429)).toBe(true);
  });

  it('sliding', async () => {
    const { s, clock } = await service({ tokens: FORTY, rateLimit: { shape: 'sliding' } });
    const seen = await drive(s, clock, 't', times);
    expect(seen).toEqual(modelled(slidingModel(40, 60_000), times));
    expect(seen.some((a) => a.status === 429)).toBe(true);
  });

  it('token-bucket with burst', async () => {
    const { s, clock } = await service({ tokens: FOUR, rateLimit: { windowMs: BUCKET_WINDOW_MS, shape: 'token-bucket', burst: 2 } });
    const bucketTimes = schedule(300, 6000, 11);
    const seen = await drive(s, clock, 't', bucketTimes);
    expect(seen).toEqual(modelled(bucketModel(4, 2, BUCKET_WINDOW_MS), bucketTimes));
    expect(seen.some((a) => a.status === 429)).toBe(true);
  });
});

describe('sliding log', () => {
  it('admits while fewer than limit were admitted in the last window; Reset and Retry-After follow the log', async () => {
    const { s, clock } = await service({ rateLimit: { ...TEN_S, shape: 'sliding' }, tokens: FIVE });
    const times = [0, 1000, 2000, 3000, 4000, 5000, 9999, 10_000, 10_500, 11_000, 11_001, 14_500, 25_000, 25_000];
    const seen = await drive(s, clock, 't', times);
    expect(seen).toEqual(modelled(slidingModel(5, 10_000), times));
    // Spot checks against the definition, by hand.
    expect(seen[4]).toEqual(ok(5, 0, 6)); // 5th at 4 s: the one at 0 leaves at 10 s
    expect(seen[5]).toEqual(refused(5, 5, 5)); // at 5 s: a slot frees at 10 s
    expect(seen[6]).toEqual(refused(5, 1, 1)); // at 9.999 s: 1 ms to wait, rounded up
    expect(seen[7]).toEqual(ok(5, 0, 1)); // at 10 s the one at 0 has left; oldest now 1 s
    expect(seen[8]).toEqual(refused(5, 1, 1)); // at 10.5 s: the one at 1 s leaves at 11 s
    expect(seen[12]).toEqual(ok(5, 4, 10)); // at 25 s the log is empty
    expect(s.stats().rateLimited).toBe(4);
  });

  it('waits for as many entries to leave as needed when throttled below the log', async () => {
    const { s, clock } = await service({ rateLimit: { ...TEN_S, shape: 'sliding' }, tokens: FIVE });
    const before = await drive(s, clock, 't', [0, 1000, 2000, 3000]);
    expect(before.map((a) => a.remaining)).toEqual([4, 3, 2, 1]);
    // 4 in the log, throttled to 2: the entries at 0, 1 and 2 s must leave, the last at 12 s.
    s.faults.set({ throttleAfter: 2 });
    const [r] = await drive(s, clock, 't', [3500]);
    expect(r).toEqual(refused(5, 7, 9));
  });

  it('sends Reset 0 when nothing is in use, and epoch Reset from the oldest entry', async () => {
    const { s, clock } = await service({ rateLimit: { ...TEN_S, shape: 'sliding', reset: 'epoch-seconds' }, tokens: FIVE });
    const anon = answerOf(await call(s.baseUrl, 'GET', '/flows'));
    expect(anon).toEqual({ status: 401, limit: 17, remaining: 17, reset: Math.ceil(WALL / 1000) });
    const [a, b] = await drive(s, clock, 't', [250, 3000]);
    const epoch = Math.ceil((WALL + 250 + 10_000) / 1000);
    expect(a).toEqual(ok(5, 4, epoch));
    expect(b).toEqual(ok(5, 3, epoch));
  });

  it('answers a premature 429 with Retry-After 1 and the true Remaining, without counting it', async () => {
    const { s, clock } = await service({ rateLimit: { ...TEN_S, shape: 'sliding' }, tokens: FIVE, faults: { premature429: { rate: 1 } } });
    const [r] = await drive(s, clock, 't', [0]);
    expect(r).toEqual({ status: 429, limit: 5, remaining: 5, reset: 0, retryAfter: 1 });
    s.faults.clear();
    const after = await drive(s, clock, 't', [0, 0, 0, 0, 0, 0]);
    expect(after.map((a) => a.status)).toEqual([200, 200, 200, 200, 200, 429]);
    expect(s.stats().faults.premature429).toBe(1);
  });
});

describe('token bucket', () => {
  it('burst 0: capacity = limit, refills one token per windowMs/limit', async () => {
    const { s, clock } = await service({ rateLimit: { windowMs: BUCKET_WINDOW_MS, shape: 'token-bucket' }, tokens: FOUR });
    const times = [0, 0, 0, 0, 0, 2000, 4096, 4096, 5000, 12_288, 30_000, 100_000];
    const seen = await drive(s, clock, 't', times);
    expect(seen).toEqual(modelled(bucketModel(4, 0, BUCKET_WINDOW_MS), times));
    expect(seen.slice(0, 5)).toEqual([ok(4, 3, 5), ok(4, 2, 9), ok(4, 1, 13), ok(4, 0, 17), refused(4, 17, 5)]);
    // At 4.096 s one token is back: taken at once, then empty again until 8.192 s.
    expect(seen[6]).toEqual(ok(4, 0, 17));
    expect(seen[7]).toEqual(refused(4, 17, 5));
    // Full again at 100 s (one taken): empty it and read a refusal's body.
    expect((await drive(s, clock, 't', [100_000, 100_000, 100_000])).map((a) => a.remaining)).toEqual([2, 1, 0]);
    const r = await call(s.baseUrl, 'GET', '/flows', { token: 't' });
    expect(r.json.error.details).toEqual({ limit: 4, reason: 'token bucket empty' });
    expect(s.stats().rateLimited).toBe(seen.filter((a) => a.status === 429).length + 1);
  });

  it("a refusal's headers describe the bucket at the instant it refused, however late they are written", async () => {
    // A clock that moves 2 ms on every read: the refusal is decided 1 ms before a token returns,
    // its headers are written after it did. Read then, an honest 429 said Remaining 1.
    const clock = createFakeClock({ wallStartMs: WALL });
    let ticking = false;
    const nowNs = clock.nowNs.bind(clock);
    const moving = Object.assign(Object.create(clock) as FakeClock, { nowNs: () => (ticking ? (clock.advance(ms(2)), nowNs()) : nowNs()) });
    const s = await start({ clock: moving, latency: 'none', rateLimit: { windowMs: BUCKET_WINDOW_MS, shape: 'token-bucket' }, tokens: FOUR });
    await drive(s, clock, 't', [0, 0, 0, 0]);
    clock.advanceTo(ms(4096 - 3));
    ticking = true;
    const late = answerOf(await call(s.baseUrl, 'GET', '/flows', { token: 't' }));
    ticking = false;
    expect(late.status).toBe(429);
    expect(late.remaining).toBe(0);
  });

  it('burst > 0: advertises and holds limit + burst, refilling at limit per window', async () => {
    const { s, clock } = await service({ rateLimit: { windowMs: BUCKET_WINDOW_MS, shape: 'token-bucket', burst: 3 }, tokens: FOUR });
    const times = [0, 0, 0, 0, 0, 0, 0, 0, 4096, 4096, 8192, 20_000, 40_000, 40_001];
    const seen = await drive(s, clock, 't', times);
    expect(seen).toEqual(modelled(bucketModel(4, 3, BUCKET_WINDOW_MS), times));
    expect(seen.slice(0, 8).map((a) => a.status)).toEqual([200, 200, 200, 200, 200, 200, 200, 429]);
    expect(seen[6]).toEqual(ok(7, 0, 29)); // 7 × 4.096 s = 28.672 s to refill
    expect(seen[7]).toEqual(refused(7, 29, 5));
    const anon = answerOf(await call(s.baseUrl, 'GET', '/flows'));
    expect(anon).toEqual({ status: 401, limit: 30, remaining: 30, reset: 0 }); // free 27 + burst 3
  });
});

describe('throttleAfter: a limiter that refuses before its advertised limit', () => {
  it('fixed: with limit 40 and throttleAfter 25, the 25th answer says Remaining 15 and the 26th is refused', async () => {
    const { s, clock } = await service({ tokens: { t: { account: 'a', tier: { limitPerMinute: 40 } } }, faults: { throttleAfter: 25 } });
    const times = [...Array.from({ length: 30 }, () => 0), 60_000];
    const seen = await drive(s, clock, 't', times);
    expect(seen).toEqual(modelled(fixedModel(40, 60_000, 25), times));
    expect(seen[24]).toEqual(ok(40, 15, 60));
    expect(seen[25]).toEqual(refused(40, 60, 60));
    expect(seen.slice(25, 30).every((a) => a.status === 429 && a.remaining === 0 && a.limit === 40)).toBe(true);
    expect(seen[30]).toEqual(ok(40, 39, 60)); // a new window
    expect(s.stats().faults.throttled429).toBe(5);
    expect(s.stats().rateLimited).toBe(0);
  });

  it('sliding: enforces N in the last window, set at run time', async () => {
    const { s, clock } = await service({ rateLimit: { ...TEN_S, shape: 'sliding' }, tokens: FIVE });
    expect(s.faults.set({ throttleAfter: 3 })).toEqual({ throttleAfter: 3 });
    const times = [0, 1000, 2000, 3000, 9999, 10_000, 12_000, 12_500, 13_000];
    const seen = await drive(s, clock, 't', times);
    expect(seen).toEqual(modelled(slidingModel(5, 10_000, 3), times));
    expect(seen[2]).toEqual(ok(5, 2, 8));
    expect(seen[3]).toEqual(refused(5, 7, 7));
    expect(s.stats().faults.throttled429).toBe(seen.filter((a) => a.status === 429).length);
  });

  it('token-bucket: caps the real bucket at N while advertising limit + burst, set over /admin/faults', async () => {
    const { s, clock } = await service({
      rateLimit: { windowMs: BUCKET_WINDOW_MS, shape: 'token-bucket', burst: 3 },
      tokens: FOUR,
      adminToken: 'adm_limiters',
    });
    const put = await call(s.webhookHost, 'PUT', '/admin/faults', { token: 'adm_limiters', body: { throttleAfter: 5 } });
    expect(put.json).toEqual({ throttleAfter: 5 });
    const times = [0, 0, 0, 0, 0, 0, 4096, 4096, 8192, 60_000, 60_000, 60_000, 60_000, 60_000, 60_000];
    const seen = await drive(s, clock, 't', times);
    expect(seen).toEqual(modelled(bucketModel(4, 3, BUCKET_WINDOW_MS, 5), times));
    expect(seen[4]).toEqual(ok(7, 2, 21)); // 5 taken of an advertised 7
    expect(seen[5]).toEqual(refused(7, 21, 5));
    expect(s.stats().faults.throttled429).toBe(seen.filter((a) => a.status === 429).length);
  });

  it('does nothing at or above the limit, and is removed by null', async () => {
    const { s, clock } = await service({ rateLimit: TEN_S, tokens: FIVE, faults: { throttleAfter: 10 } });
    const times = [0, 0, 0, 0, 0, 0];
    expect(await drive(s, clock, 't', times)).toEqual(modelled(fixedModel(5, 10_000), times));
    expect(s.stats().faults.throttled429).toBe(0);
    expect(s.stats().rateLimited).toBe(1);
    expect(s.faults.set({ throttleAfter: null })).toEqual({});
  });
});

describe('remainingDrift: a limiter that misreports Remaining', () => {
  it('adds D to Remaining, clamped to [0, limit], without changing enforcement', async () => {
    const { s, clock } = await service({ rateLimit: TEN_S, tokens: FIVE, faults: { remainingDrift: 3 } });
    const times = [0, 0, 0, 0, 0, 0];
    const truth = modelled(fixedModel(5, 10_000), times);
    const seen = await drive(s, clock, 't', times);
    expect(seen).toEqual(truth.map((a) => ({ ...a, remaining: Math.min(5, Math.max(0, a.remaining + 3)) })));
    // The 5th answer says 3 remain; the 6th is refused (and says 3 too).
    expect(seen.map((a) => a.remaining)).toEqual([5, 5, 5, 4, 3, 3]);
    expect(seen[5]?.status).toBe(429);
    expect(s.stats().faults.driftedRemaining).toBe(6);
    // Responses without a token are not a limiter's answer: no drift.
    expect(answerOf(await call(s.baseUrl, 'GET', '/flows')).remaining).toBe(17);
  });

  it('negative D under-reports; only answers whose value changed are counted', async () => {
    const { s, clock } = await service({ rateLimit: { ...TEN_S, shape: 'sliding' }, tokens: FIVE });
    s.faults.set({ remainingDrift: -2 });
    const times = [0, 1000, 2000, 3000, 4000, 5000];
    const truth = modelled(slidingModel(5, 10_000), times);
    const seen = await drive(s, clock, 't', times);
    expect(seen).toEqual(truth.map((a) => ({ ...a, remaining: Math.max(0, a.remaining - 2) })));
    // The first answer says 2 remain, yet 4 more are admitted.
    expect(seen.map((a) => [a.status, a.remaining])).toEqual([[200, 2], [200, 1], [200, 0], [200, 0], [200, 0], [429, 0]]);
    expect(s.stats().faults.driftedRemaining).toBe(4);
    expect(s.faults.get()).toEqual({ remainingDrift: -2 });
    s.faults.set({ remainingDrift: 0 });
    expect(s.faults.get()).toEqual({});
  });

  it('shifts the Remaining 0 of a throttled 429 too', async () => {
    const { s, clock } = await service({ rateLimit: TEN_S, tokens: FIVE, faults: { throttleAfter: 2, remainingDrift: 1 } });
    const seen = await drive(s, clock, 't', [0, 0, 0]);
    expect(seen.map((a) => [a.status, a.remaining])).toEqual([[200, 5], [200, 4], [429, 1]]);
    s.faults.clear();
    expect(s.faults.get()).toEqual({});
  });
});

describe('validation', () => {
  function issuesOf(fn: () => unknown): ConfigIssue[] {
    try {
      fn();
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      return [...(err as ConfigError).issues];
    }
    throw new Error('expected a ConfigError');
  }

  it('names the path and what is allowed for the new options', () => {
    expect(issuesOf(() => resolveReferenceOptions({ rateLimit: { shape: 'leaky' as 'fixed' } }))).toEqual([
      { path: 'rateLimit.shape', message: 'must be one of "fixed", "sliding", "token-bucket"' },
    ]);
    expect(issuesOf(() => resolveReferenceOptions({ rateLimit: { shape: 'token-bucket', burst: -1 } }))).toEqual([
      { path: 'rateLimit.burst', message: 'must be between 0 and ∞' },
    ]);
    expect(issuesOf(() => resolveReferenceOptions({ rateLimit: { shape: 'token-bucket', burst: 1.5 } }))).toEqual([
      { path: 'rateLimit.burst', message: 'must be an integer' },
    ]);
    expect(issuesOf(() => resolveReferenceOptions({ rateLimit: { shape: 'sliding', burst: 2 } }))).toEqual([
      { path: 'rateLimit.burst', message: 'only applies to shape "token-bucket"' },
    ]);
    expect(issuesOf(() => parseReferenceConfig({ rateLimit: { burst: 2 } }))).toEqual([
      { path: 'rateLimit.burst', message: 'only applies to shape "token-bucket"' },
    ]);
  });

  it('names the path and what is allowed for the new faults, from options, set() and the admin endpoint', async () => {
    expect(issuesOf(() => resolveReferenceOptions({ faults: { throttleAfter: 2.5, remainingDrift: 0.5 } }))).toEqual([
      { path: 'faults.throttleAfter', message: 'must be an integer' },
      { path: 'faults.remainingDrift', message: 'must be an integer' },
    ]);
    expect(issuesOf(() => resolveReferenceOptions({ faults: { throttleAfter: 0 } }))).toEqual([
      { path: 'faults.throttleAfter', message: 'must be between 1 and ∞' },
    ]);
    const s = await start({ latency: 'none', adminToken: 'adm_limiters' });
    expect(issuesOf(() => s.faults.set({ throttleAfter: 1.5 }))).toEqual([{ path: 'throttleAfter', message: 'must be an integer' }]);
    const bad = await call(s.webhookHost, 'PUT', '/admin/faults', { token: 'adm_limiters', body: { remainingDrift: 'lots' } });
    expect(bad.status).toBe(400);
    expect(bad.json.error.details).toMatchObject({ field: 'remainingDrift', reason: 'must be a finite number' });
    expect(s.faults.get()).toEqual({});
  });

  it('reads the new option and faults from a file and resolves them', () => {
    const o = parseReferenceConfig({
      rateLimit: { windowMs: '10s', shape: 'token-bucket', burst: 2 },
      faults: { throttleAfter: 3, remainingDrift: -1 },
    });
    const r = resolveReferenceOptions(o);
    expect(r.limiter).toEqual({ shape: 'token-bucket', burst: 2 });
    expect(r.rateLimit).toEqual({ windowMs: 10_000, reset: 'delta-seconds', headers: true });
    expect(r.faults).toEqual({ throttleAfter: 3, remainingDrift: -1 });
    expect(resolveReferenceOptions({}).limiter).toEqual({ shape: 'fixed', burst: 0 });
  });
});
