/**
 * Options of the reference service and their resolution into one readonly object. Validation
 * of untrusted input lives in `config.ts`, the shapes callers give in `option-shapes.ts`; this
 * file holds the defaults and the resolved shapes.
 */
import { createSystemClock, NS_PER_MS, type Clock } from '../core/clock.js';
import { ConfigError } from '../core/errors.js';
import { tierLimitPerMinute, type Tier } from '../core/tiers.js';
import { parseDurationMs } from '../core/units.js';
import { readOptions } from './config.js';
import { parseFaultPatch, type FaultPatch } from './faults.js';
import type { ResolvedLimiter } from './limiters.js';
import type { FlowSpec, NotificationSpec, QuirkOptions, ReferenceServiceOptions, RequestInfo } from './option-shapes.js';

export type { FlowSpec, NotificationSpec, QuirkOptions, ReferenceServiceOptions, RequestInfo } from './option-shapes.js';

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
