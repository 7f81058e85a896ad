/**
 * report@1 `rateLimit`: the zod schema, and the types taken from it (`z.output`, readonly at every
 * depth). How the section is projected and merged is in `rate-limit.ts`; the whole report's schema
 * is put together in `../report-schema.ts`.
 */
import { z } from 'zod';
import { bool, count, countMap, nonNegative, nullable, num, obj, pct, str, written, type DeepReadonly } from './schema-kit.js';

/** report@1 `rateLimit`. */
export const rateLimitSchema = obj(
  {
    /** The most common X-RateLimit-Limit value; null when none arrived. */
    advertisedLimit: nullable(count),
    resetSemantics: z.enum(['delta-seconds', 'epoch-seconds', 'unknown']),
    responses429: count,
    expected429: count,
    premature429: count,
    /** Counts by `HeaderViolationKind`. */
    headerViolations: countMap,
    windows: z.array(
      obj(
        {
          /** Raw Reset header of the window's first response (null when absent). */
          reset: nullable(str),
          accepted: count,
          rejected: count,
        },
        {
          /** Limit advertised in the window (null when absent). */
          limit: written(nullable(count)),
          /** Lowest Remaining of an accepted response in the window (null when none). */
          minRemaining: written(nullable(count)),
        },
      ),
    ),
  },
  {
    /** Responses analysed (requests that got any HTTP response). */
    responses: written(count),
    /**
     * 429s that carried none of the `X-RateLimit-*` headers, which the service sends on every
     * answer: something in front of it (a gateway's `limit_req`, a proxy) refused them. Optional
     * for reports written before it was counted.
     */
    headerless429: count,
    /** 429s whose order against the limit requests in flight made unknowable (optional in older reports). */
    uncertain429: count,
    /** True when the limiter's windows overlap (sliding log, token bucket): only Remaining judged. */
    rolling: bool,
    /** The latency of the refused answers (not in `ops.*.latencyMs`). */
    latencyMs: pct,
    /** Older windows not kept. */
    windowsDropped: written(count),
    /**
     * The first 429 observed: `index` is its 1-based position among requests by send time, `atMs`
     * the time it was sent, from the run's start. Null when no 429 arrived.
     */
    first429: written(nullable(obj({ index: count, atMs: num }))),
    /**
     * From the reset of the first window that rejected requests to the first accepted response of
     * a later window, in ms (at the 1 s resolution of Reset). Null when not measurable.
     */
    recoveryMs: written(nullable(nonNegative)),
  },
);

/**
 * `rateLimit`: what the rate-limit analyser found, and the latency of the refused answers (429s
 * are not latency samples of the service's work: `ops.*.latencyMs` leaves them out).
 */
export type RateLimitReport = DeepReadonly<z.output<typeof rateLimitSchema>>;
