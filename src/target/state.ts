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

/** A token's fixed rate-limit window. The window opens at the first request after the last one closed. */
export interface TokenState {
  readonly account: string;
  readonly limit: number;
  count: number;
  windowEndNs: number;
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
