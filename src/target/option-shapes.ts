/**
 * The shapes of the reference service's options as a caller or a config file gives them. Apart
 * from `options.ts` (defaults and resolution) so that `config.ts`, which validates them, and
 * `options.ts`, which resolves them after validating, do not import each other.
 */
import type { Clock } from '../core/clock.js';
import type { Tier } from '../core/tiers.js';
import type { FaultPatch } from './faults.js';
import type { RateLimitShape } from './limiters.js';

/** Who a token belongs to and how fast it may go. */
export interface TokenSpec {
  readonly account: string;
  /** `free` (100/min), `pro` (1000/min) or a custom limit per window. */
  readonly tier: Tier;
}

/** A flow of the seeded catalogue. Field names follow the interface where it has them. */
export interface FlowSpec {
  readonly id: string;
  readonly account: string;
  readonly name?: string;
  readonly description?: string;
  readonly status?: 'published' | 'draft';
  readonly input_schema?: Readonly<Record<string, unknown>>;
  readonly output_schema?: Readonly<Record<string, unknown>>;
  /** Parser template of the flow's webhook trigger (`{key}` variables); absent: stringify. */
  readonly template?: string;
}

/** The simulated generation speed. Durations accept ms numbers or strings like `"40ms"`. */
export interface LatencyOptions {
  /** Request arrival to first token (default 40 ms). */
  readonly ttftMs?: number | string;
  /** Gap between tokens (default 8 ms). */
  readonly itlMs?: number | string;
  /** Each gap is scaled by a uniform factor in [1 - jitter, 1 + jitter] (default 0.2). */
  readonly jitter?: number;
  /** Tokens per run, uniform in [min, max] (default 8–32). */
  readonly tokens?: { readonly min?: number; readonly max?: number };
  /** Time between the last token and completion of the run (default 2 ms). */
  readonly runOverheadMs?: number | string;
  /** Extra time to the first token per word of the input (0.05 ms, +50 ms at 1,000 words, in the default model; else 0). */
  readonly prefillMsPerWord?: number;
}

/** How requests are limited. */
export interface RateLimitOptions {
  /** Length of a window (default 60000 ms); tier limits are per window (bucket: refill per window). */
  readonly windowMs?: number | string;
  /**
   * `fixed` (default): windows that open at the first request after the last closed.
   * `sliding`: a log of the last `windowMs`. `token-bucket`: capacity `limit + burst`,
   * refilled continuously at `limit` per `windowMs`. See `RateLimitShape`.
   */
  readonly shape?: RateLimitShape;
  /** Bucket capacity beyond the limit (integer ≥ 0, default 0); `token-bucket` only. */
  readonly burst?: number;
  /** Unit of `X-RateLimit-Reset`: seconds left (default) or Unix epoch seconds. */
  readonly reset?: 'delta-seconds' | 'epoch-seconds';
  /** Whether the `X-RateLimit-*` headers are sent at all (default true). */
  readonly headers?: boolean;
}

/** A receiver of outbound notifications (the interface's registration shape). */
export interface NotificationSpec {
  readonly webhook_url: string;
  /** Event names to deliver; `*` for all. */
  readonly events: readonly string[];
  readonly secret: string;
}

/** Delivery retries of outbound notifications. */
export interface DeliveryOptions {
  /** Attempts in all, first included (default 3). */
  readonly attempts?: number;
  /** Wait before the 2nd attempt; doubles each time (default 500 ms). */
  readonly backoffMs?: number | string;
  /** Per-attempt timeout (default 5000 ms). */
  readonly timeoutMs?: number | string;
}

/** Variants of details the interface leaves open, so clients can be tested against each. */
export interface QuirkOptions {
  /** End SSE lines with CRLF instead of LF. */
  readonly sseCrlf?: boolean;
  /** Send SSE comment lines (`: …`) before `start` and before `end`. */
  readonly sseComments?: boolean;
  /** Send an event of a type the interface does not define (`metadata`) right after `start`. */
  readonly sseUnknownEvents?: boolean;
  /** Add fields beyond the interface to error bodies (`error.docs_url`, top-level `timestamp`). */
  readonly errorExtraFields?: boolean;
}

/** What `onRequest` is told about each request. */
export interface RequestInfo {
  readonly method: string;
  readonly path: string;
  /** Arrival, on the service's clock (ns). */
  readonly atNs: number;
  /** The W3C `traceparent` header, when sent. */
  readonly traceparent: string | undefined;
  /** Status answered; 0 when the connection was reset on purpose. */
  readonly status: number;
}

/** Options of `startReferenceService`; every field is optional. */
export interface ReferenceServiceOptions {
  readonly port?: number;
  readonly host?: string;
  readonly clock?: Clock;
  readonly seed?: number;
  /** Extra accounts that get seeded flows even without a token. */
  readonly accounts?: readonly string[];
  /** token → owner and tier. Replaces the three default tokens. */
  readonly tokens?: Readonly<Record<string, TokenSpec>>;
  /** Bearer token of `/admin/faults`; random when absent. */
  readonly adminToken?: string;
  readonly rateLimit?: RateLimitOptions;
  /** Flows per account (default 12), or the exact catalogue. */
  readonly flows?: number | readonly FlowSpec[];
  readonly latency?: 'none' | LatencyOptions;
  /** `sync`: run answers `completed`; `async`: run answers `running` at once. */
  readonly runMode?: 'sync' | 'async';
  /** Share of runs that end `failed` (default 0). */
  readonly failureRate?: number;
  /** `flow.run`: flow.run.started/completed/failed; `flow`: flow.completed/failed. */
  readonly eventNames?: 'flow.run' | 'flow';
  readonly notifications?: readonly NotificationSpec[];
  readonly delivery?: DeliveryOptions;
  /** Price of 1000 tokens in the analytics `cost` (default 0.002). */
  readonly pricePer1kTokens?: number;
  readonly faults?: FaultPatch;
  /** Variants of unspecified details (all off by default). */
  readonly quirks?: QuirkOptions;
  /** Runs kept for reads, and sessions kept for reads; the oldest are forgotten past this (default 20000 each). */
  readonly maxRecords?: number;
  /** Estimated bytes of the runs kept, and of the sessions kept; the oldest are forgotten past this (default 32 MiB each). */
  readonly maxRecordBytes?: number;
  /** Called for every request once its status is known; must be cheap. */
  readonly onRequest?: (info: RequestInfo) => void;
}
