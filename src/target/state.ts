/** Everything a request handler may touch, gathered in one object built at start. */
import type { Clock } from '../core/clock.js';
import type { UsageLedger } from './analytics.js';
import type { Catalogue } from './catalogue.js';
import type { FaultEngine } from './faults.js';
import type { Notifier } from './notifier.js';
import type { ResolvedReferenceOptions } from './options.js';
import type { RunEngine } from './runs.js';
import type { SessionStore } from './sessions.js';
import type { StatsCounters } from './stats.js';
import type { TimerSet } from './timers.js';

/**
 * A token's rate-limiter state, for every shape (built by `createTokenState` in `limiters.ts`,
 * so all tokens share one object layout). Each shape uses its own fields and leaves the rest.
 */
export interface TokenState {
  readonly account: string;
  /** Requests per window (the tier limit scaled to `windowMs`). */
  readonly limit: number;
  /** fixed: requests admitted in the current window. sliding: entries in `log`. */
  count: number;
  /**
   * fixed: requests that arrived in the current window, refused ones included: a refusal is
   * early (`throttled429`) when fewer than the limit had arrived before it, as a client counts.
   */
  arrived: number;
  /** fixed: end of the current window. The window opens at the first request after the last one closed. */
  windowEndNs: number;
  /** sliding: admission times (ns), a ring (grown as needed, at most `limit` slots) whose oldest entry is at `head`. Empty otherwise. */
  log: Float64Array;
  /** sliding: index of the oldest entry of `log`. */
  head: number;
  /** token-bucket: tokens taken and not yet refilled, in units of 1/windowNs token. */
  debt: number;
  /** token-bucket: when `debt` was last brought up to date. */
  lastNs: number;
}

/** The service's state. */
export interface ServiceState {
  readonly opts: ResolvedReferenceOptions;
  readonly clock: Clock;
  readonly baseUrl: string;
  readonly tokens: ReadonlyMap<string, TokenState>;
  readonly adminToken: string;
  readonly windowNs: number;
  /** Limit shown on responses to requests without a valid token (never enforced). */
  readonly anonLimit: number;
  readonly catalogue: Catalogue;
  readonly runs: RunEngine;
  readonly sessions: SessionStore;
  readonly ledger: UsageLedger;
  readonly notifier: Notifier;
  readonly faults: FaultEngine;
  readonly stats: StatsCounters;
  readonly timers: TimerSet;
  nextRequestId(): string;
}
