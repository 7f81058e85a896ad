/**
 * report@1 `rateLimit`: the zod schema, and the types taken from it (`z.output`, readonly at every
 * depth). How the section is projected and merged is in `rate-limit.ts`; the whole report's schema
 * is put together in `../report-schema.ts`.
 */
import { z } from 'zod';
import { bool, count, countMap, int, nonNegative, nullable, num, obj, pct, str, written, type DeepReadonly } from './schema-kit.js';

const ints = z.array(int);
const intsOrNull = z.array(nullable(num));

/** `rateLimit.byOp.<op>`: the 429 verdicts of one operation. */
const throttleCounts = obj({ expected: count, premature: count, uncertain: count });

/**
 * `rateLimit.evidence`: what the 429s are judged on, so the verdicts settle on all of it (at the
 * run's end, and on the union when workers or shards merge): columns of integers, times in µs
 * from the report's start. See docs/report-json.md.
 */
const evidenceSchema = obj({
  of: z.int().min(1),
  covers: z.int().min(1),
  units: z.array(str),
  ops: z.array(str),
  dropped: count,
  sendUs: ints,
  answerUs: intsOrNull,
  status: ints,
  judged: obj({ at: ints, op: ints, unit: ints, lagUs: ints, flags: ints, verdict: z.array(z.int().min(1).max(3)) }),
  findings: countMap,
}, {
  contract: obj({ limit: z.number().gt(0), windowMs: z.number().gt(0) }),
  tenant: str,
  horizonUs: num,
  // Left out when no answer had the header.
  limit: intsOrNull,
  remaining: intsOrNull,
  reset: intsOrNull,
  retryAfterS: intsOrNull,
});

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
    /** True when the limiter's windows overlap (sliding log, token bucket). */
    rolling: bool,
    /**
     * 429s with evidence that something in front of the service answered them: a body that is
     * not the service's error object, another Server or Via than its admissions carried, or the
     * X-RateLimit-* headers its admissions carry missing.
     */
    gateway429: count,
    /** The 429 verdicts by operation. */
    byOp: z.record(str, throttleCounts),
    /** What the 429s were judged on (absent in older reports, and when no answer came). */
    evidence: evidenceSchema,
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
