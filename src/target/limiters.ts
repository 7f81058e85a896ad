/**
 * The rate-limiter shapes other than the fixed window: a sliding log and a token bucket. The
 * fixed window stays inline in the pipeline and in `addRateLimit`, exactly as it was, so the
 * default hot path gains nothing but one string comparison.
 *
 * Every function here reads time only from the `nowNs` it is given (the service clock), so a
 * fake clock makes every admission and every header value exact. Nothing allocates per request:
 * the sliding log is a ring that only grows (by doubling, up to `limit`), and `describeLimit`
 * fills one reused object.
 */
import { NS_PER_S } from '../core/clock.js';
import type { ServiceState, TokenState } from './state.js';

/** Every value of `rateLimit.shape`. */
export const RATE_LIMIT_SHAPES = ['fixed', 'sliding', 'token-bucket'] as const;

/**
 * How a token's requests are limited:
 * - `fixed`: `limit` per window; a window opens at the first request after the last one closed.
 * - `sliding`: admitted while fewer than `limit` requests were admitted in the last `windowMs`.
 * - `token-bucket`: capacity `limit + burst`, refilled continuously at `limit` per `windowMs`.
 */
export type RateLimitShape = (typeof RATE_LIMIT_SHAPES)[number];

/** The limiter settings resolved from `rateLimit.shape` and `rateLimit.burst`. */
export interface ResolvedLimiter {
  readonly shape: RateLimitShape;
  /** Extra bucket capacity beyond `limit` (token-bucket only; 0 otherwise). */
  readonly burst: number;
}

/** What the headers of one response say, in numbers. Valid until the next `describeLimit` call. */
export interface LimitView {
  /** `X-RateLimit-Limit`: the advertised limit (bucket: its capacity). */
  limit: number;
  /** `X-RateLimit-Remaining` before faults: the advertised limit minus what is in use. */
  remaining: number;
  /** Time until `X-RateLimit-Reset`, in ns (for the epoch form). */
  resetNs: number;
  /** The same in whole seconds, rounded up (the delta form). */
  resetS: number;
}

// Every token starts with this shared empty log, so all TokenStates have the same fields (one
// hidden class for the JIT); only a sliding limiter ever replaces it with a ring of its own.
const EMPTY_LOG = new Float64Array(0);

// First ring size of a sliding log; it doubles from here as the token's traffic needs.
const MIN_LOG = 16;

// One object reused by every call: the headers are written synchronously right after.
const VIEW: LimitView = { limit: 0, remaining: 0, resetNs: 0, resetS: 0 };

/** A token's limiter state, fresh: nothing used under any shape. */
export function createTokenState(account: string, limit: number): TokenState {
  return { account, limit, count: 0, arrived: 0, windowEndNs: -Infinity, log: EMPTY_LOG, head: 0, debt: 0, lastNs: -Infinity };
}

/**
 * Makes room for one more entry in a full log. The ring grows rather than being sized `limit`
 * up front, because a limit may be huge (a benchmark token allows 10⁹ a minute) while the
 * requests actually in a window are few. It never needs more than `limit` slots: `throttleAfter`
 * only lowers the enforced limit. Happens O(log limit) times per token, never per request after.
 */
function growLog(tok: TokenState): void {
  const old = tok.log;
  const log = new Float64Array(Math.min(tok.limit, Math.max(MIN_LOG, old.length * 2)));
  // Unroll the ring so the oldest entry is at 0.
  log.set(old.subarray(tok.head));
  log.set(old.subarray(0, tok.head), old.length - tok.head);
  tok.log = log;
  tok.head = 0;
}

/**
 * ⌈a / b⌉ for a ≥ 0 and b > 0. A float quotient can round across an integer (x.0000000001 to x),
 * and a ceiling of it is then a second off; the correction makes it exact for integer a and b
 * whose products stay below 2^53: integer clock readings while (limit + burst) × windowNs < 2^53
 * (100,000 a minute is 6 × 10^15).
 */
function ceilDiv(a: number, b: number): number {
  let q = Math.ceil(a / b);
  if (q > 0 && (q - 1) * b >= a) q--;
  else if (q * b < a) q++;
  return q;
}

/**
 * Drops log entries that have left the window: one admitted at `s` counts while `now < s + window`.
 * Returns how many remain. Time only moves forward, so dropping is final.
 */
function slide(tok: TokenState, windowNs: number, nowNs: number): number {
  const log = tok.log;
  while (tok.count > 0 && (log[tok.head] as number) + windowNs <= nowNs) {
    tok.head = tok.head + 1 === log.length ? 0 : tok.head + 1;
    tok.count--;
  }
  return tok.count;
}

/**
 * Refills the bucket up to `nowNs` and returns its debt. The bucket is kept as a debt (tokens
 * taken and not yet refilled) in units of 1/windowNs token, so taking a token adds `windowNs`
 * and each ns refills `limit`: integer arithmetic throughout on a fake clock, hence exact.
 */
function refill(tok: TokenState, nowNs: number): number {
  if (nowNs > tok.lastNs) {
    const d = tok.debt - (nowNs - tok.lastNs) * tok.limit;
    tok.debt = d > 0 ? d : 0;
    tok.lastNs = nowNs;
  }
  return tok.debt;
}

/** The limit a token's headers advertise: `limit`, or the bucket's capacity `limit + burst`. */
export function advertisedLimit(state: ServiceState, tok: TokenState): number {
  const lim = state.opts.limiter;
  return lim.shape === 'token-bucket' ? tok.limit + lim.burst : tok.limit;
}

/**
 * Requests the advertised limit still allows at `nowNs`, before counting this one (bucket: whole
 * tokens). For `sliding` and `token-bucket` only; brings the token's state up to `nowNs`.
 */
export function roomNow(state: ServiceState, tok: TokenState, nowNs: number): number {
  if (state.opts.limiter.shape === 'sliding') return tok.limit - slide(tok, state.windowNs, nowNs);
  return advertisedLimit(state, tok) - ceilDiv(refill(tok, nowNs), state.windowNs);
}

/**
 * Counts one request at `nowNs` against `enforced` (at most the advertised limit; lower under
 * `throttleAfter`). Returns 0 when admitted; else the `Retry-After` of the refusal: whole seconds,
 * rounded up and at least 1, until a request would be admitted under `enforced`.
 * For `sliding` and `token-bucket` only.
 */
export function admitOrWait(state: ServiceState, tok: TokenState, nowNs: number, enforced: number): number {
  const windowNs = state.windowNs;
  if (state.opts.limiter.shape === 'sliding') {
    const used = slide(tok, windowNs, nowNs);
    if (used < enforced) {
      if (used === tok.log.length) growLog(tok);
      const log = tok.log;
      log[(tok.head + used) % log.length] = nowNs;
      tok.count = used + 1;
      return 0;
    }
    // `used - enforced + 1` entries must leave; the last of them is the one at that offset.
    const log = tok.log;
    const freeAtNs = (log[(tok.head + used - enforced) % log.length] as number) + windowNs;
    return Math.max(1, Math.ceil((freeAtNs - nowNs) / NS_PER_S));
  }
  const debt = refill(tok, nowNs);
  // At least one token left of `enforced` ⇔ debt ≤ (enforced − 1) tokens.
  const maxDebt = (enforced - 1) * windowNs;
  if (debt <= maxDebt) {
    tok.debt = debt + windowNs;
    return 0;
  }
  return Math.max(1, ceilDiv(debt - maxDebt, tok.limit * NS_PER_S));
}

/**
 * The header numbers for `tok` at `nowNs` (for `sliding` and `token-bucket` only), in a shared
 * object. Without a token: the advertised limit at the anonymous limit, nothing used, Reset 0.
 * Reset 0 means nothing is in use: no slot to wait for (sliding), the bucket is full (token-bucket).
 */
export function describeLimit(state: ServiceState, tok: TokenState | undefined, nowNs: number): Readonly<LimitView> {
  const lim = state.opts.limiter;
  const windowNs = state.windowNs;
  if (tok === undefined) {
    VIEW.limit = VIEW.remaining = lim.shape === 'token-bucket' ? state.anonLimit + lim.burst : state.anonLimit;
    VIEW.resetNs = VIEW.resetS = 0;
  } else if (lim.shape === 'sliding') {
    const used = slide(tok, windowNs, nowNs);
    VIEW.limit = tok.limit;
    VIEW.remaining = tok.limit - used;
    // When the oldest entry leaves, a slot frees.
    VIEW.resetNs = used === 0 ? 0 : (tok.log[tok.head] as number) + windowNs - nowNs;
    VIEW.resetS = Math.ceil(VIEW.resetNs / NS_PER_S);
  } else {
    const debt = refill(tok, nowNs);
    VIEW.limit = tok.limit + lim.burst;
    VIEW.remaining = VIEW.limit - ceilDiv(debt, windowNs);
    // Full again once the whole debt has refilled at `limit` per ns.
    VIEW.resetNs = debt / tok.limit;
    VIEW.resetS = ceilDiv(debt, tok.limit * NS_PER_S);
  }
  return VIEW;
}

/** `details.reason` of a 429 under each shape. */
export function refusalReason(shape: RateLimitShape): string {
  return shape === 'token-bucket' ? 'token bucket empty' : 'rate limit window used up';
}
