/**
 * Counters of what the service did, for tests and benchmarks. Counting is a few integer
 * increments per request; `snapshot` copies them out.
 */

/** What the service has done since it started. */
export interface ServiceStats {
  /** Requests answered (or reset on purpose). */
  readonly requests: number;
  /** route → HTTP status → count. Routes are operation names, `admin` or `unknown`; status 0 is a reset. */
  readonly byRoute: Readonly<Record<string, Readonly<Record<string, number>>>>;
  /** 429s sent because the limiter's advertised limit was used up. */
  readonly rateLimited: number;
  readonly runs: { readonly started: number; readonly completed: number; readonly failed: number };
  readonly streams: { readonly started: number; readonly ended: number; readonly truncated: number; readonly stalled: number; readonly aborted: number };
  readonly sessions: number;
  readonly triggers: number;
  readonly deliveries: { readonly attempts: number; readonly sent: number; readonly failed: number; readonly retries: number };
  readonly faults: {
    readonly connectionResets: number;
    readonly malformedBodies: number;
    readonly injectedErrors: number;
    readonly outageResponses: number;
    readonly missingRateLimitHeaders: number;
    readonly premature429: number;
    /** 429s of `throttleAfter`: refused while the advertised limit was not used up (Remaining 0 on them). */
    readonly throttled429: number;
    /** Responses whose `X-RateLimit-Remaining` `remainingDrift` changed (after clamping). */
    readonly driftedRemaining: number;
    readonly delayed: number;
  };
  /** Exceptions thrown by the `onRequest` callback (swallowed). */
  readonly callbackErrors: number;
  /** Runs and sessions kept for reads, their estimated bytes, and how many were forgotten to stay within the limits. */
  readonly records: {
    readonly runs: RecordsHeld;
    readonly sessions: RecordsHeld;
  };
}

/** What a bounded record store holds. */
export interface RecordsHeld {
  readonly records: number;
  readonly bytes: number;
  readonly forgotten: number;
}

type DeepMutable<T> = { -readonly [K in keyof T]: T[K] extends object ? DeepMutable<T[K]> : T[K] };

/** Mutable counters behind `ServiceStats`. */
export type StatsCounters = DeepMutable<Omit<ServiceStats, 'byRoute' | 'records'>> & {
  byRoute: Record<string, Record<number, number>>;
};

/** Fresh zeroed counters. */
export function createStats(): StatsCounters {
  return {
    requests: 0,
    byRoute: {},
    rateLimited: 0,
    runs: { started: 0, completed: 0, failed: 0 },
    streams: { started: 0, ended: 0, truncated: 0, stalled: 0, aborted: 0 },
    sessions: 0,
    triggers: 0,
    deliveries: { attempts: 0, sent: 0, failed: 0, retries: 0 },
    faults: {
      connectionResets: 0,
      malformedBodies: 0,
      injectedErrors: 0,
      outageResponses: 0,
      missingRateLimitHeaders: 0,
      premature429: 0,
      throttled429: 0,
      driftedRemaining: 0,
      delayed: 0,
    },
    callbackErrors: 0,
  };
}

/** Counts one answered request. */
export function countRequest(stats: StatsCounters, route: string, status: number): void {
  stats.requests++;
  let r = stats.byRoute[route];
  if (r === undefined) stats.byRoute[route] = r = {};
  r[status] = (r[status] ?? 0) + 1;
}

/** A deep copy that later requests do not change (the store figures are added by the service). */
export function snapshotStats(stats: StatsCounters): Omit<ServiceStats, 'records'> {
  return structuredClone(stats) as Omit<ServiceStats, 'records'>;
}
