/**
 * What the main thread and the workers of `flowgauge run --workers N` say to each other. Every
 * message is plain data (structured-cloned by `postMessage`).
 */
import type { ClientOptions } from '../../api/index.js';
import type { MetricsSnapshot, OtlpExportOptions, RunMetricsOptions } from '../../export/index.js';
import type { Report } from '../../report/index.js';
import type { DashboardWindow, FollowOptions, RunProgress } from '../../run/index.js';
import type { ScenarioOverrides } from '../../scenario/index.js';

/** A worker's whole brief, given as its `workerData`. */
export interface WorkerInput {
  /** The scenario file: each worker loads it itself (a journey is code, and code is not sent). */
  readonly file: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly overrides: ScenarioOverrides;
  readonly shard: { readonly index: number; readonly count: number };
  /** The instant the run's shards share (`--start-at`), ms: a worker that starts later joins its schedule in phase. */
  readonly startAtMs?: number | undefined;
  readonly target: { readonly baseUrl: string; readonly embedded: boolean };
  /** The token of every scenario without one of its own. Never printed. */
  readonly token: string;
  /** Tokens by scenario name (tenants). */
  readonly tokens: Readonly<Record<string, string>>;
  /** This worker's share of the connections, per scenario name and in all. */
  readonly connections: { readonly total: number; readonly byScenario: Readonly<Record<string, number>> };
  /** TLS trust, headers, proxy, transport, webhook host: the same for every client. */
  readonly client: Omit<ClientOptions, 'baseUrl' | 'token' | 'connections'>;
  readonly follow: FollowOptions | false;
  /** What each worker exports for the main thread to combine: metrics, dashboard windows, spans. */
  readonly exports: WorkerExports;
}

/**
 * The exporters of a run over workers. Metrics and dashboard windows go back to the main thread
 * (which serves, pushes and publishes them combined); spans go from each worker straight to
 * the OTLP endpoint, as from any other process.
 */
export interface WorkerExports {
  readonly metrics?: Omit<RunMetricsOptions, 'registry'> | undefined;
  readonly dashboard?: boolean | undefined;
  readonly otel?: OtlpExportOptions | undefined;
}

/** What a worker sends with each progress tick and with its report. */
export interface WorkerSnapshot {
  /** Its whole registry so far (counters are totals, so the latest replaces the earlier). */
  readonly metrics?: MetricsSnapshot | undefined;
  /** What it saw since its last tick. */
  readonly dashboard?: DashboardWindow | undefined;
}

/** From a worker. */
export type FromWorker =
  | { readonly type: 'ready' }
  | { readonly type: 'progress'; readonly progress: RunProgress; readonly snapshot: WorkerSnapshot }
  /** One of its abort-on-fail thresholds failed (it is stopping): the main thread stops the others. */
  | { readonly type: 'aborted'; readonly by: string }
  /** The report of its schedule, before finishing (following, notifications) can wait on the target. */
  | { readonly type: 'scheduled'; readonly report: Report }
  | { readonly type: 'done'; readonly report: Report; readonly dataExhausted: readonly string[]; readonly snapshot: WorkerSnapshot }
  | { readonly type: 'failed'; readonly error: { readonly name: string; readonly code: string | undefined; readonly message: string } };

/**
 * To a worker: start the schedule (every worker is prepared), stop and drain, or cancel before
 * the first request (a stop while the run waited for `--start-at`: nothing runs, no report);
 * `abort`: end as aborted by the threshold `by` that another worker saw fail (not interrupted).
 */
export type ToWorker = { readonly type: 'go' } | { readonly type: 'stop' } | { readonly type: 'cancel' } | { readonly type: 'abort'; readonly by: string };
