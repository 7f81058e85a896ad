/**
 * Options of the reference service and their resolution into one readonly object. Validation
 * of untrusted input lives in `config.ts`; this file holds the shapes and the defaults.
 */
import { createSystemClock, NS_PER_MS, type Clock } from '../core/clock.js';
import { ConfigError } from '../core/errors.js';
import { tierLimitPerMinute, type Tier } from '../core/tiers.js';
import { parseDurationMs } from '../core/units.js';
import { readOptions } from './config.js';
import { parseFaultPatch, type FaultPatch } from './faults.js';
import type { RateLimitShape, ResolvedLimiter } from './limiters.js';

/** Default demo tokens by tier: free on account A, pro and enterprise on account B. */
export const DEFAULT_TOKENS: { readonly free: string; readonly pro: string; readonly enterprise: string } = Object.freeze({
  free: 'fg_free_demo',
  pro: 'fg_pro_demo',
  enterprise: 'fg_ent_demo',
});

/** Accounts of the default tokens. */
export const DEFAULT_ACCOUNTS = Object.freeze({ a: 'acct_a', b: 'acct_b' });

/**
 * Runs (and, separately, sessions) kept for reads by default. A load test reads a record
 * within seconds of writing it; 20,000 is many seconds even at the enterprise limit
 * (1,667 requests/s), and keeps the runs under 8 MB.
 */
export const DEFAULT_MAX_RECORDS = 20_000;

/** Estimated bytes of the runs (and, separately, the sessions) kept by default: 32 MiB. */
export const DEFAULT_MAX_RECORD_BYTES = 32 * 1024 * 1024;

/** Limit of the default enterprise token, per window. */
export const DEFAULT_ENTERPRISE_LIMIT = 100_000;

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

/** Latency model with every default filled, in ns. */
export interface ResolvedLatency {
  readonly ttftNs: number;
  readonly itlNs: number;
  readonly jitter: number;
  readonly minTokens: number;
  readonly maxTokens: number;
  readonly overheadNs: number;
  readonly prefillNsPerWord: number;
}

/** A token with its limit per window. */
export interface ResolvedToken {
  readonly account: string;
  readonly tier: Tier;
  readonly limit: number;
}

/** Every option resolved; built once at start. */
export interface ResolvedReferenceOptions {
  readonly port: number;
  readonly host: string;
  readonly clock: Clock;
  readonly seed: number;
  readonly accounts: readonly string[];
  readonly tokens: ReadonlyMap<string, ResolvedToken>;
  readonly adminToken: string | undefined;
  readonly rateLimit: { readonly windowMs: number; readonly reset: 'delta-seconds' | 'epoch-seconds'; readonly headers: boolean };
  /**
   * `rateLimit.shape` and `rateLimit.burst`, resolved. Kept beside `rateLimit` rather than in it
   * so the resolved `rateLimit` object keeps the three fields callers already compare against.
   */
  readonly limiter: ResolvedLimiter;
  readonly flows: number | readonly FlowSpec[];
  readonly latency: ResolvedLatency;
  readonly runMode: 'sync' | 'async';
  readonly failureRate: number;
  readonly eventNames: 'flow.run' | 'flow';
  readonly notifications: readonly NotificationSpec[];
  readonly delivery: { readonly attempts: number; readonly backoffMs: number; readonly timeoutMs: number };
  readonly pricePer1kTokens: number;
  readonly faults: FaultPatch;
  readonly quirks: Required<QuirkOptions>;
  readonly maxRecords: number;
  readonly maxRecordBytes: number;
  readonly onRequest: ((info: RequestInfo) => void) | undefined;
}

const DEFAULT_LATENCY = { ttftMs: 40, itlMs: 8, jitter: 0.2, min: 8, max: 32, runOverheadMs: 2, prefillMsPerWord: 0.05 };

/** Validates `options` (throws `ConfigError` listing every problem) and fills every default. */
export function resolveReferenceOptions(options: ReferenceServiceOptions = {}): ResolvedReferenceOptions {
  const issues = readOptions(options, true);
  if (issues.length > 0) throw new ConfigError(issues, 'reference service options');
  const windowMs = toMs(options.rateLimit?.windowMs) ?? 60_000;
  const tokens = new Map<string, ResolvedToken>();
  const specs = options.tokens ?? {
    [DEFAULT_TOKENS.free]: { account: DEFAULT_ACCOUNTS.a, tier: 'free' },
    [DEFAULT_TOKENS.pro]: { account: DEFAULT_ACCOUNTS.b, tier: 'pro' },
    [DEFAULT_TOKENS.enterprise]: { account: DEFAULT_ACCOUNTS.b, tier: { limitPerMinute: DEFAULT_ENTERPRISE_LIMIT } },
  };
  for (const [token, spec] of Object.entries(specs)) {
    // Tier limits are per minute; a shorter test window scales them down proportionally.
    const limit = Math.max(1, Math.round((tierLimitPerMinute(spec.tier) * windowMs) / 60_000));
    tokens.set(token, { account: spec.account, tier: spec.tier, limit });
  }
  const accounts = [...new Set([...[...tokens.values()].map((t) => t.account), ...(options.accounts ?? [])])];
  const lat = options.latency === 'none' ? undefined : options.latency;
  const none = options.latency === 'none';
  return {
    port: options.port ?? 0,
    host: options.host ?? '127.0.0.1',
    clock: options.clock ?? createSystemClock(),
    seed: options.seed ?? 1,
    accounts,
    tokens,
    adminToken: options.adminToken,
    rateLimit: { windowMs, reset: options.rateLimit?.reset ?? 'delta-seconds', headers: options.rateLimit?.headers ?? true },
    limiter: { shape: options.rateLimit?.shape ?? 'fixed', burst: options.rateLimit?.burst ?? 0 },
    flows: options.flows ?? 12,
    latency: {
      ttftNs: (none ? 0 : (toMs(lat?.ttftMs) ?? DEFAULT_LATENCY.ttftMs)) * NS_PER_MS,
      itlNs: (none ? 0 : (toMs(lat?.itlMs) ?? DEFAULT_LATENCY.itlMs)) * NS_PER_MS,
      jitter: none ? 0 : (lat?.jitter ?? DEFAULT_LATENCY.jitter),
      minTokens: lat?.tokens?.min ?? DEFAULT_LATENCY.min,
      maxTokens: lat?.tokens?.max ?? Math.max(DEFAULT_LATENCY.max, lat?.tokens?.min ?? 0),
      overheadNs: (none ? 0 : (toMs(lat?.runOverheadMs) ?? DEFAULT_LATENCY.runOverheadMs)) * NS_PER_MS,
      // The default model reads prompts; a latency model given without prefill has none (exact schedules in tests).
      prefillNsPerWord: (none ? 0 : (lat?.prefillMsPerWord ?? (lat === undefined ? DEFAULT_LATENCY.prefillMsPerWord : 0))) * NS_PER_MS,
    },
    runMode: options.runMode ?? 'sync',
    failureRate: options.failureRate ?? 0,
    eventNames: options.eventNames ?? 'flow.run',
    notifications: options.notifications ?? [],
    delivery: {
      attempts: options.delivery?.attempts ?? 3,
      backoffMs: toMs(options.delivery?.backoffMs) ?? 500,
      timeoutMs: toMs(options.delivery?.timeoutMs) ?? 5000,
    },
    pricePer1kTokens: options.pricePer1kTokens ?? 0.002,
    faults: parseFaultPatch(options.faults ?? {}, 'faults', []),
    quirks: {
      sseCrlf: options.quirks?.sseCrlf ?? false,
      sseComments: options.quirks?.sseComments ?? false,
      sseUnknownEvents: options.quirks?.sseUnknownEvents ?? false,
      errorExtraFields: options.quirks?.errorExtraFields ?? false,
    },
    maxRecords: options.maxRecords ?? DEFAULT_MAX_RECORDS,
    maxRecordBytes: options.maxRecordBytes ?? DEFAULT_MAX_RECORD_BYTES,
    onRequest: options.onRequest,
  };
}

function toMs(v: number | string | undefined): number | undefined {
  // Strings were validated by readOptions; parse them the same way.
  return v === undefined ? undefined : parseDurationMs(v);
}
