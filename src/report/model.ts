/**
 * The report model, `flowgauge/report@1`: a contract other tools read (DESIGN "Contracts").
 * Field names here are fixed; fields may be added, never renamed. Times in ms, rates per
 * second, ratios 0–1. Pure: wall-clock times come in as arguments.
 */
import type { ByOp, OpName } from '../core/ops.js';
import type { AsyncRunsSnapshot } from '../collect/async-runs.js';
import type { ContractViolationEntry, ContractViolationTotals } from '../collect/contract-violations.js';
import type { Pct } from '../collect/histogram.js';
import type { OpSnapshot } from '../collect/op-stats.js';
import type { NotificationMatchSnapshot } from '../collect/notification-matcher.js';
import type { RateLimitSnapshot } from '../collect/rate-limit-analyser.js';
import type { SliceEntry } from '../collect/slices.js';
import type { StreamSnapshot } from '../collect/stream-collector.js';
import type { PromptLengthSection } from '../collect/prompt-length.js';
import type { CheckCounts, IterationsSnapshot } from '../collect/iteration-stats.js';
import type { ThresholdResult } from '../slo/thresholds.js';
import type { RunVerdict } from './verdict.js';

/** The schema identifier of this version. */
export const REPORT_SCHEMA = 'flowgauge/report@1';

/** `ops.<op>`: counts, statuses, errors and latency from the intended start. */
export type OpReport = OpSnapshot;

/** `stream`: stream timings (the serialised histograms are under `histograms`). */
export type StreamReport = Omit<StreamSnapshot, 'histograms'> & PromptLengthSection;

/**
 * `rateLimit`: what the rate-limit analyser found, and the latency of the refused answers (429s
 * are not latency samples of the service's work: `ops.*.latencyMs` leaves them out).
 */
export type RateLimitReport = RateLimitSnapshot & { readonly latencyMs?: Pct };

/** `slo`: events against the objective. */
export interface SloReport {
  readonly objective: number;
  readonly good: number;
  readonly bad: number;
  readonly excluded: number;
  /** good / (good + bad); null when there were neither (nothing to judge). */
  readonly availability: number | null;
  /** bad / (good + bad); 0 with no events. */
  readonly errorRatio: number;
  /** errorRatio / (1 − objective): 1.0 = this run spent exactly its share of budget. */
  readonly errorBudgetConsumed: number;
  /** Observed error ratio / (1 − objective); over one run the same number as `errorBudgetConsumed`. */
  readonly burnRate: number;
  /** Whole bad events the objective allows for this many events. */
  readonly allowedBadEvents: number;
}

/** `notifications` (added in @1): outbound notifications received during the run. */
export interface NotificationsReport extends NotificationMatchSnapshot {
  /** Requests that reached the receiver, accepted or not. */
  readonly requests: number;
  /** Deliveries the receiver refused, by reason (`bad-signature`, `replay`, `oversize`, …). */
  readonly rejected: Readonly<Record<string, number>>;
}

/** `asyncRuns` (added in @1): runs that answered `running` and triggers, followed to their end. */
export type AsyncRunsReport = AsyncRunsSnapshot;

/** The four usage figures the audit compares. */
export interface UsageCounts {
  readonly totalRuns: number;
  readonly successfulRuns: number;
  readonly failedRuns: number;
  readonly totalTokens: number;
}

/** One flow's usage comparison. */
export interface UsageFlowAudit {
  readonly flowId: string;
  readonly service: UsageCounts | null;
  readonly client: UsageCounts;
  /** service − client; null when the service could not be read. */
  readonly diff: UsageCounts | null;
}

/** `audit.usage`: `/analytics/usage` over the run's window against what the client saw finish. */
export interface UsageAuditReport {
  /** Range asked for (ISO 8601). */
  readonly window: { readonly start: string; readonly end: string };
  /** `per-flow`: one query per flow the run used; `account`: one query for all (many flows). */
  readonly scope: 'per-flow' | 'account';
  readonly service: UsageCounts | null;
  readonly client: UsageCounts;
  /** service − client; the service may count other traffic of the account. */
  readonly diff: UsageCounts | null;
  /** True when every figure agreed. */
  readonly exact: boolean;
  readonly flows: readonly UsageFlowAudit[];
  /**
   * What the client could not count: runs that finished without a token count, and runs whose
   * end it never learnt (triggers without a notification, `running` runs not followed or given up).
   */
  readonly clientUnknown: { readonly runsWithoutTokens: number; readonly unresolved: number };
  /** Queries that failed (`<flow>: <code>`). */
  readonly errors: readonly string[];
  /**
   * True when the service answered the per-flow queries as if `flow_id` were not there (they
   * added up to more than its answer for the whole account, or repeated each other): the
   * account's answer is compared instead (`scope` `account`, no `flows`). Absent otherwise.
   */
  readonly filterIgnored?: boolean;
  /**
   * True when the service refused every usage query with 401 or 403: this token may not read
   * usage. Nothing was compared (`service` and `diff` are null); it is not a disagreement.
   * Absent otherwise.
   */
  readonly forbidden?: boolean;
}

/** One problem found in a session's history. */
export interface SessionProblem {
  readonly sessionId: string;
  readonly check: 'read' | 'order' | 'roles' | 'count' | 'timestamps' | 'total';
  readonly expected: string;
  readonly got: string;
}

/** `audit.sessions`: histories of the sessions the mix ran in, read back and checked. */
export interface SessionAuditReport {
  readonly sessions: number;
  /** Runs and streams that finished in those sessions. */
  readonly runs: number;
  /** Histories read. */
  readonly checked: number;
  /** Sessions whose user messages match the inputs in the order sent. */
  readonly inOrder: number;
  /** Sessions whose roles alternate user, assistant, … (judged when no run failed). */
  readonly alternating: number;
  /** Sessions with the expected number of messages. */
  readonly countMatches: number;
  /** Sessions whose runs overlapped in time: their order and alternation are not judged. */
  readonly concurrent: number;
  /** At most 50. */
  readonly problems: readonly SessionProblem[];
}

/** One tenant's audit (`audit.tenants[]`): the scenarios that ran with one token, read with it. */
export interface TenantAuditReport {
  /** The scenarios of the run that used this token (the first names the tenant). */
  readonly scenarios: readonly string[];
  readonly usage?: UsageAuditReport;
  readonly sessions?: SessionAuditReport;
}

/** `audit` (added in @1). */
export interface AuditReport {
  /** The run's usage audit when it ran as one tenant (one token); absent when `tenants` is there. */
  readonly usage?: UsageAuditReport;
  /** The run's sessions audit when it ran as one tenant (one token); absent when `tenants` is there. */
  readonly sessions?: SessionAuditReport;
  /**
   * A run of several tenants (scenarios with tokens of their own): one audit per tenant, each
   * read with its own token, since the figures of different accounts are not one comparison.
   */
  readonly tenants?: readonly TenantAuditReport[];
  /** True when the audit was cut by its deadline or a stop (Ctrl-C) before it had read everything. */
  readonly incomplete?: boolean;
}

/** `load`: what the executor was asked to do and did. */
export interface LoadReport {
  readonly executor: string;
  /** Requested arrival rate; null for closed-model executors, which have none. */
  readonly targetRatePerS: number | null;
  /** started / durationS. */
  readonly achievedRatePerS: number;
  readonly started: number;
  /** Starts skipped because `maxInFlight` was reached (never silently delayed). */
  readonly dropped: number;
  /** Actual start − intended start. */
  readonly scheduleLagMs: Pct;
  /**
   * Requests still in flight when the grace period of a stop ran out, aborted by flowgauge:
   * they say nothing about the service, so they are in no other count.
   */
  readonly cancelled?: number;
  /**
   * Added in @1: requests still open when the grace period after the schedule ended, within their
   * own deadline (one past it is a `TIMEOUT`): the run cut them, so they are in no other count.
   */
  readonly cut?: number;
  /** Added in @1, with `cut`: the grace period that ended, in s (absent when scenarios had different ones). */
  readonly gracefulStopS?: number;
  /**
   * Added in @1: the schedule's own length in s (from its start to its end, without the drain
   * that follows); `achievedRatePerS` is `started / scheduleS`.
   */
  readonly scheduleS?: number;
  /** Added in @1: worker threads that generated the load (`flowgauge run --workers N`); absent for one. */
  readonly workers?: number;
}

/** `iterations` (added in @1): journey iterations by outcome. */
export type IterationsReport = IterationsSnapshot;

/**
 * `checks` (added in @1): named journey checks, `{ passes, fails, examples? }` each; `examples`
 * (added in @1) holds up to 3 distinct failures as `{ expected, actual }` text of ≤ 200 characters.
 */
export type ChecksReport = Readonly<Record<string, CheckCounts>>;

/** `warnings[]` (added in @1): the generator itself limited or distorted the load. */
export interface RunWarning {
  /** Stable, e.g. `DATA_EXHAUSTED`, `DROPPED`, `SCHEDULE_BEHIND`. */
  readonly code: string;
  /** What happened and what to change. */
  readonly message: string;
}


/** `scenarios.<name>` (added in @1): one scenario of a run of several, with its own figures. */
export interface ScenarioReport {
  readonly load: LoadReport;
  readonly ops: ByOp<OpReport>;
  readonly stream: StreamReport;
  readonly rateLimit: RateLimitReport;
  readonly slo: SloReport;
  readonly contractViolationTotals: ContractViolationTotals;
  readonly iterations?: IterationsReport;
  readonly checks?: ChecksReport;
  readonly steps?: Readonly<Record<string, Pct>>;
  /** Serialised histograms of this scenario, keyed as the top level's (merge stays exact). */
  readonly histograms: Readonly<Record<string, string>>;
}

/** The whole report, `flowgauge/report@1`. */
export interface Report {
  readonly schema: typeof REPORT_SCHEMA;
  readonly scenario: string;
  /** True when the run was stopped early (signal, fatal error) and the report covers part of it. */
  readonly interrupted: boolean;
  /** The target; its URL never carries credentials or a query string. */
  readonly target: { readonly baseUrl: string; readonly embedded: boolean };
  /** ISO 8601 UTC timestamps. */
  readonly startedAt: string;
  readonly endedAt: string;
  readonly durationS: number;
  readonly load: LoadReport;
  /** Operations that saw at least one request. */
  readonly ops: ByOp<OpReport>;
  readonly stream: StreamReport;
  readonly rateLimit: RateLimitReport;
  readonly slo: SloReport;
  readonly thresholds: readonly ThresholdResult[];
  /** Added in @1: true when every threshold passed (true with no thresholds). */
  readonly passed: boolean;
  /** Added in @1: the abort-on-fail threshold metric that ended the run early, if one did. */
  readonly abortedBy?: string;
  /** Distinct violations, most frequent first (at most a few hundred; see `contractViolationTotals`). */
  readonly contractViolations: readonly ContractViolationEntry[];
  /** Added in @1: every violation seen, and what the bounded list dropped. */
  readonly contractViolationTotals: ContractViolationTotals;
  /** Added in @1: length of a slice in ms (1000 by default). */
  readonly sliceMs: number;
  /**
   * One entry per slice from the run's start, by intended start time: `{ t (s since start),
   * requests, good, bad, excluded, responses429, ops: { <op>: { count, latency } } }` where
   * `latency` is a serialised HDR histogram like those of `histograms`.
   */
  readonly slices: readonly SliceEntry[];
  /**
   * Serialised HdrHistograms (compressed base64, values in µs; `stream.tokensPerS` in
   * milli-tokens per second) keyed `<op>.latency` and `stream.<timing>`. Merging the histograms
   * of several shards gives exact percentiles of the whole.
   */
  readonly histograms: Readonly<Record<string, string>>;
  /** Added in @1: notifications received during the run, when a receiver listened. */
  readonly notifications?: NotificationsReport;
  /** Added in @1: asynchronous runs and triggers followed to their end, when there were any. */
  readonly asyncRuns?: AsyncRunsReport;
  /** Added in @1: the service's own account of the run, compared with the client's. */
  readonly audit?: AuditReport;
  /** Added in @1: PASS, FAIL, INTERRUPTED (stopped by the user) or ABORTED (by an abort-on-fail threshold). */
  readonly verdict?: RunVerdict;
  /** Added in @1: journey iterations, when the run had journeys. */
  readonly iterations?: IterationsReport;
  /** Added in @1: journey checks by name. */
  readonly checks?: ChecksReport;
  /** Added in @1: latency of named journey steps. */
  readonly steps?: Readonly<Record<string, Pct>>;
  /** Added in @1: each scenario of a run of several (the top level is the whole run). */
  readonly scenarios?: Readonly<Record<string, ScenarioReport>>;
  /** Added in @1: where the generator itself limited the load, and what to change. */
  readonly warnings?: readonly RunWarning[];
}
