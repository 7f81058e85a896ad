/**
 * A test double whose behaviour is known exactly: limiters of several shapes (some honest, some
 * lying) answering an open-model client on a simulated clock. Every 429 carries its truth, from
 * the limiter's own books: premature when fewer requests than the advertised limit had reached
 * it in the advertised window, expected otherwise. Honest rolling limiters never refuse early.
 */
import type { RateLimitInfo, RequestSample } from '../../src/core/types.js';
import { MS, S, rl, sample } from './samples.js';

/** What a limiter answers to a request reaching it at `t` (ns). */
export interface LimiterAnswer {
  readonly status: 200 | 429;
  readonly rateLimit: RateLimitInfo;
  /** For a 429: whether it came before the advertised limit was used (the truth). */
  readonly premature: boolean;
}

/** A limiter: a function of arrival time, with state. */
export type Limiter = (t: number) => LimiterAnswer;

/**
 * A fixed window of `windowS` aligned to 0, advertising `limit` with Remaining = limit − admitted
 * (+ `drift`, clamped to [0, limit]); it enforces `admits` (default: the limit). Its 429s say
 * Remaining 0.
 */
export function fixedWindow(o: { limit: number; windowS: number; admits?: number; drift?: number }): Limiter {
  let index = -1;
  let admitted = 0;
  let arrived = 0;
  return (t) => {
    const w = Math.floor(t / (o.windowS * S));
    if (w !== index) {
      index = w;
      admitted = 0;
      arrived = 0;
    }
    const reset = Math.ceil((w + 1) * o.windowS - t / S);
    const before = arrived++;
    if (admitted >= (o.admits ?? o.limit)) return { status: 429, rateLimit: rl(o.limit, 0, reset), premature: before < o.limit };
    admitted++;
    const remaining = Math.min(o.limit, Math.max(0, o.limit - admitted + (o.drift ?? 0)));
    return { status: 200, rateLimit: rl(o.limit, remaining, reset), premature: false };
  };
}

/**
 * A sliding log: at most `limit` admitted in any `windowS`; Reset = seconds until the quota is
 * whole again (the newest admitted request leaves the window), as the IETF RateLimit fields
 * define it, or (`slot-frees`) until the oldest leaves and one slot frees.
 */
export function slidingLog(o: { limit: number; windowS: number; reset?: 'quota-whole' | 'slot-frees' }): Limiter {
  const log: number[] = [];
  return (t) => {
    while (log.length > 0 && (log[0] as number) <= t - o.windowS * S) log.shift();
    const ok = log.length < o.limit;
    if (ok) log.push(t);
    const edge = o.reset === 'slot-frees' ? log[0] : log[log.length - 1];
    const reset = edge === undefined ? 0 : Math.ceil((edge + o.windowS * S - t) / S);
    return { status: ok ? 200 : 429, rateLimit: rl(o.limit, o.limit - log.length, reset), premature: false };
  };
}

/**
 * A token bucket of `limit + burst` tokens refilled at `limit` per `windowS` (nginx `limit_req`
 * with `burst … nodelay`, had it sent headers): Limit = capacity, Remaining = whole tokens left,
 * Reset = seconds until full.
 */
export function tokenBucket(o: { limit: number; windowS: number; burst?: number }): Limiter {
  const capacity = o.limit + (o.burst ?? 0);
  const perNs = o.limit / (o.windowS * S);
  let tokens = capacity;
  let last = 0;
  return (t) => {
    tokens = Math.min(capacity, tokens + (t - last) * perNs);
    last = t;
    const ok = tokens >= 1;
    if (ok) tokens -= 1;
    const reset = Math.ceil((capacity - tokens) / perNs / S);
    return { status: ok ? 200 : 429, rateLimit: rl(capacity, Math.floor(tokens), reset), premature: false };
  };
}

/** One simulated request: the sample the client saw and, for a 429, the truth. */
export interface SimRequest {
  readonly sample: RequestSample;
  readonly premature: boolean;
}

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
