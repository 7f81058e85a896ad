/** What the rate-limit analyser reports of one token: report.json `rateLimit` (less its latency). */
import type { RateLimitEvidence } from './rate-limit-evidence.js';
import type { ThrottleCounts } from './rate-limit-settle.js';
import type { ResetSemantics } from './reset-semantics.js';

/** One rate-limit window as report.json shows it. */
export interface RateLimitWindow {
  /** Raw Reset header of the window's first response (null when absent). */
  readonly reset: string | null;
  readonly accepted: number;
  readonly rejected: number;
  /** Limit advertised in the window (null when absent). */
  readonly limit: number | null;
  /** Lowest Remaining of an accepted response in the window (null when none). */
  readonly minRemaining: number | null;
}

/** Everything the analyser found, for report.json `rateLimit`. */
export interface RateLimitSnapshot {
  /** The most common X-RateLimit-Limit value; null when none arrived. */
  readonly advertisedLimit: number | null;
  readonly resetSemantics: ResetSemantics;
  /** Responses analysed (requests that got any HTTP response). */
  readonly responses: number;
  readonly responses429: number;
  readonly expected429: number;
  readonly premature429: number;
  /** 429s whose order against the limit requests in flight made unknowable (optional in older reports). */
  readonly uncertain429?: number;
  /** True when the limiter's windows overlap (sliding log, token bucket): only Remaining judged. */
  readonly rolling?: boolean;
  /**
   * 429s that carried none of the `X-RateLimit-*` headers, which the service sends on every
   * answer: something in front of it (a gateway's `limit_req`, a proxy) refused them. Optional
   * for reports written before it was counted.
   */
  readonly headerless429?: number;
  /**
   * 429s with evidence that something in front of the service answered them: a body that is not
   * the service's error object, another Server or Via than its admissions carried, or the
   * X-RateLimit-* headers its admissions carry missing. Optional for older reports.
   */
  readonly gateway429?: number;
  /** The 429 verdicts by operation (optional for older reports). */
  readonly byOp?: Readonly<Record<string, ThrottleCounts>>;
  /** Counts by `HeaderViolationKind`. */
  readonly headerViolations: Record<string, number>;
  readonly windows: RateLimitWindow[];
  /** Older windows not kept. */
  readonly windowsDropped: number;
  /**
   * The first 429 observed: `index` is its 1-based position among requests by send time, `atMs`
   * the time it was sent, from the run's start. Null when no 429 arrived.
   */
  readonly first429: { readonly index: number; readonly atMs: number } | null;
  /**
   * From the reset of the first window that rejected requests to the first accepted response of
   * a later window, in ms (at the 1 s resolution of Reset). Null when not measurable.
   */
  readonly recoveryMs: number | null;
  /** What the 429s are judged on, so they can be settled at the end and on merged shards (absent when no answer came). */
  readonly evidence?: RateLimitEvidence;
}
