/**
 * A test double whose behaviour is known exactly: limiters of every dialect flowgauge meets
 * (fixed windows with a delta or an epoch Reset, sliding logs counting attempts or admissions,
 * token buckets, Retry-After only, no headers at all, a gateway's HTML 429), each honest or lying,
 * answering an open-model client on a simulated clock. Every 429 carries its truth, from the
 * limiter's own books: premature when fewer requests than the contract's limit had reached it in
 * the contract's window (the advertised window, or the window of the advertised length ending at
 * it for a rolling limiter), expected otherwise. An honest limiter never refuses early.
 */
import type { ContractViolation, RateLimitInfo, RequestSample } from '../../src/core/types.js';
import { MS, S, rl, sample } from './samples.js';

/** What a limiter answers to a request reaching it at `t` (ns). */
export interface LimiterAnswer {
  readonly status: 200 | 429;
  /** Undefined when the answer carries no rate-limit header at all. */
  readonly rateLimit: RateLimitInfo | undefined;
  /** For a 429: whether it came before the contract's limit was used (the truth). */
  readonly premature: boolean;
  /** The answer is a gateway's page, not the service's error body. */
  readonly foreign?: boolean;
}

/** A limiter: a function of arrival time, with state. */
export type Limiter = (t: number) => LimiterAnswer;

/** Unix seconds of the simulated clock's 0 (2026-01-01T00:00:00Z): epoch Reset values count from here. */
export const EPOCH0 = 1_767_225_600;

/** Rate-limit headers with a Retry-After (seconds) beside them, or alone. */
export function withRetryAfter(info: RateLimitInfo | undefined, retryAfterS: number): RateLimitInfo {
  const base = info ?? rl(undefined, undefined, undefined);
  return { ...base, raw: { ...base.raw, retryAfter: String(retryAfterS) } };
}

/** Requests that reached a limiter, for the truth of a rolling window: those in (t − windowS, t]. */
function arrivalsLog(): { add(t: number): void; within(t: number, windowS: number): number } {
  const log: number[] = [];
  return {
    add: (t) => void log.push(t),
    within(t, windowS) {
      let n = 0;
      for (let i = log.length - 1; i >= 0 && (log[i] as number) > t - windowS * S; i--) n++;
      return n;
    },
  };
}

/** Options of `fixedWindow`. */
export interface FixedWindowOptions {
  readonly limit: number;
  readonly windowS: number;
  /** Requests it admits per window (a liar admits fewer than it advertises). */
  readonly admits?: number;
  /** Added to the Remaining it sends (clamped to [0, limit]): a liar's Remaining. */
  readonly drift?: number;
  /** How Reset is sent: seconds until the window ends (default), its end in Unix seconds, or not at all. */
  readonly reset?: 'delta' | 'epoch' | 'none';
  /**
   * Which headers it sends: all (default); `retry-after`: none of X-RateLimit-*, Retry-After on
   * its 429s; `none`: no rate-limit header at all; `gateway`: the service's headers on admissions,
   * and a gateway's bare HTML 429s.
   */
  readonly headers?: 'all' | 'retry-after' | 'none' | 'gateway';
  /** How its whole seconds (delta Reset, Retry-After) are rounded: up (default) or down. */
  readonly round?: 'up' | 'down';
  /**
   * A liar's Reset: its counter clears this many seconds after the window it advertises ends, so
   * it refuses past the reset it promised (its headers name the next window meanwhile).
   */
  readonly resetLagS?: number;
}

/**
 * A fixed window of `windowS` aligned to 0, advertising `limit` with Remaining = limit − admitted
 * (+ `drift`, clamped to [0, limit]); it enforces `admits` (default: the limit). Its 429s say
 * Remaining 0 and carry Retry-After (seconds until the window it enforces ends).
 */
export function fixedWindow(o: FixedWindowOptions): Limiter {
  const lagNs = (o.resetLagS ?? 0) * S;
  let index = -1;
  let admitted = 0;
  // Arrivals in the window it advertises (the contract), apart from its own counter's window.
  let advertisedIndex = -1;
  let arrived = 0;
  return (t) => {
    const real = Math.floor(Math.max(0, t - lagNs) / (o.windowS * S));
    if (real !== index) {
      index = real;
      admitted = 0;
    }
    const w = Math.floor(t / (o.windowS * S));
    if (w !== advertisedIndex) {
      advertisedIndex = w;
      arrived = 0;
    }
    const before = arrived++;
    const end = (w + 1) * o.windowS;
    const whole = o.round === 'down' ? Math.floor : Math.ceil;
    const reset = o.reset === 'epoch' ? EPOCH0 + end : o.reset === 'none' ? undefined : whole(end - t / S);
    const headers = o.headers ?? 'all';
    const service = (remaining: number): RateLimitInfo | undefined => (headers === 'all' || headers === 'gateway' ? rl(o.limit, remaining, reset) : undefined);
    if (admitted >= (o.admits ?? o.limit)) {
      const retryAfter = Math.max(0, whole(((real + 1) * o.windowS * S + lagNs - t) / S));
      const premature = before < o.limit;
      if (headers === 'gateway') return { status: 429, rateLimit: undefined, premature, foreign: true };
      if (headers === 'none') return { status: 429, rateLimit: undefined, premature };
      return { status: 429, rateLimit: withRetryAfter(service(0), retryAfter), premature };
    }
    admitted++;
    const remaining = Math.min(o.limit, Math.max(0, o.limit - admitted + (o.drift ?? 0)));
    return { status: 200, rateLimit: service(remaining), premature: false };
  };
}

/**
 * A sliding log: at most `limit` (a liar: `admits`) in any `windowS`, counting the admissions
 * (default) or every attempt; Remaining = limit − what it counts, Reset = seconds until the quota
 * is whole again (the newest leaves the window), as the IETF RateLimit fields define it, or
 * (`slot-frees`) until the oldest leaves and one slot frees.
 */
export function slidingLog(o: { limit: number; windowS: number; reset?: 'quota-whole' | 'slot-frees'; counts?: 'admissions' | 'attempts'; admits?: number }): Limiter {
  const log: number[] = [];
  const arrivals = arrivalsLog();
  return (t) => {
    while (log.length > 0 && (log[0] as number) <= t - o.windowS * S) log.shift();
    const premature = arrivals.within(t, o.windowS) < o.limit;
    arrivals.add(t);
    const ok = log.length < (o.admits ?? o.limit);
    if (ok || o.counts === 'attempts') log.push(t);
    const edge = o.reset === 'slot-frees' ? log[0] : log[log.length - 1];
    const reset = edge === undefined ? 0 : Math.ceil((edge + o.windowS * S - t) / S);
    const remaining = Math.max(0, o.limit - log.length);
    return ok ? { status: 200, rateLimit: rl(o.limit, remaining, reset), premature: false } : { status: 429, rateLimit: rl(o.limit, remaining, reset), premature };
  };
}

/**
 * A token bucket of `limit + burst` tokens refilled at `limit` per `windowS` (nginx `limit_req`
 * with `burst … nodelay`, had it sent headers): Limit = capacity, Remaining = whole tokens left,
 * Reset = seconds until full. A liar holds fewer tokens than the capacity it advertises (`admits`),
 * or refills at a share of the rate (`refillShare`).
 */
export function tokenBucket(o: { limit: number; windowS: number; burst?: number; admits?: number; refillShare?: number }): Limiter {
  const capacity = o.limit + (o.burst ?? 0);
  const real = o.admits ?? capacity;
  const perNs = o.limit / (o.windowS * S);
  // A liar may also refill slower than the rate it advertises.
  const refillNs = perNs * (o.refillShare ?? 1);
  let tokens = real;
  let last = 0;
  const arrivals = arrivalsLog();
  return (t) => {
    tokens = Math.min(real, tokens + (t - last) * refillNs);
    last = t;
    // The contract: `capacity` in the time the bucket takes to fill (its advertised window).
    const premature = arrivals.within(t, capacity / perNs / S) < capacity;
    arrivals.add(t);
    const ok = tokens >= 1;
    if (ok) tokens -= 1;
    const reset = Math.ceil((real - tokens) / refillNs / S);
    return { status: ok ? 200 : 429, rateLimit: rl(capacity, Math.floor(tokens), reset), premature: !ok && premature };
  };
}

/**
 * A liar that rolls its Reset forward (now + `windowS`) on every answer and says Remaining 0 once
 * it has admitted `admits` of an advertised `limit`, refusing everything after.
 */
export function movingReset(o: { limit: number; windowS: number; admits: number }): Limiter {
  let admitted = 0;
  const arrivals = arrivalsLog();
  return (t) => {
    const premature = arrivals.within(t, o.windowS) < o.limit;
    arrivals.add(t);
    if (admitted >= o.admits) return { status: 429, rateLimit: rl(o.limit, 0, o.windowS), premature };
    admitted++;
    return { status: 200, rateLimit: rl(o.limit, Math.max(0, o.admits - admitted), o.windowS), premature: false };
  };
}

/** One simulated request: the sample the client saw and, for a 429, the truth. */
export interface SimRequest {
  readonly sample: RequestSample;
  readonly premature: boolean;
}

const FOREIGN: readonly ContractViolation[] = [{ op: 'run', path: 'error', expected: 'error body', got: 'non-JSON text' }];

/**
 * An open-model client at `ratePerS` for `durationS`: each request reaches the limiter 1 ms after
 * it is sent; a served answer takes `serviceMs` more, a refusal 1 ms. Returned in the order the
 * client observes them (by answer time).
 */
export function simulate(limiter: Limiter, o: { ratePerS: number; durationS: number; serviceMs: number }): SimRequest[] {
  const out: SimRequest[] = [];
  const n = Math.round(o.ratePerS * o.durationS);
  for (let i = 0; i < n; i++) {
    const s = Math.round((i * S) / o.ratePerS);
    const r = limiter(s + MS);
    const a = s + MS + (r.status === 200 ? o.serviceMs * MS : MS) + MS;
    out.push({
      sample: sample({
        intendedNs: s,
        startNs: s,
        headersNs: a,
        endNs: a,
        status: r.status,
        errorCode: r.status === 429 ? 'RATE_LIMITED' : undefined,
        rateLimit: r.rateLimit,
        violations: r.foreign === true ? FOREIGN : [],
      }),
      premature: r.status === 429 && r.premature,
    });
  }
  return out.sort((x, y) => x.sample.endNs - y.sample.endNs || x.sample.startNs - y.sample.startNs);
}

/** For the request observed at `k`: how many others were sent before it ended and are not yet observed. */
export function inFlightAt(requests: readonly SimRequest[], k: number): number {
  const now = (requests[k] as SimRequest).sample.endNs;
  let n = 0;
  for (let i = k + 1; i < requests.length && (requests[i] as SimRequest).sample.endNs >= now; i++) {
    if ((requests[i] as SimRequest).sample.startNs < now) n++;
  }
  return n;
}
