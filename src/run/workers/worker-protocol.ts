/**
 * What the main thread and the workers of a run over worker threads say to each other. Every
 * message is plain data (structured-cloned by `postMessage`).
 */
import type { Report } from '../../report/index.js';
import type { ResolvedRunPlan } from '../../scenario/index.js';
import type { FollowOptions } from '../async-follow.js';
import type { ExporterBriefs, ExporterSnapshots } from '../exporters/exporter-registry.js';
import type { RunProgress } from '../progress.js';
import type { ClientSpecs } from '../run-clients.js';

/** A worker's whole brief, given as its `workerData`. */
export interface WorkerInput {
  /** The plan, resolved once in the main thread; its journeys (code) left out. */
  readonly plan: ResolvedRunPlan;
  /**
   * Where the journeys are, when the plan has any: a journey is code, and code is not sent, so
   * the worker loads the scenario file (with this environment) and takes the journeys alone.
   */
  readonly journeys: { readonly file: string; readonly env: Readonly<Record<string, string | undefined>>; readonly names: readonly string[] } | undefined;
  /** Its shard of the run: every `count`-th arrival from `index` (the shard's identity stays in the main thread). */
  readonly shard: { readonly index: number; readonly count: number };
  /** The instant the run's shards share (`--start-at`), ms: a worker that starts later joins its schedule in phase. */
  readonly startAtMs?: number | undefined;
  readonly target: { readonly baseUrl: string; readonly embedded: boolean };
  /** The run's clients, each rebuilt from its own options with this worker's share of the connections. Never printed. */
  readonly clients: ClientSpecs;
  /** Its phases: following, the generator's watch (the audit belongs to the whole run). */
  readonly phases: { readonly follow: FollowOptions | false; readonly generator: boolean };
  /** What each exporter asks the worker to build (metrics, dashboard windows, spans). */
  readonly exports: ExporterBriefs;
  readonly progressIntervalMs?: number | undefined;
  readonly prepareTimeoutMs?: number | undefined;
  readonly finishTimeoutMs?: number | undefined;
  /** The module the worker imports first (`RunOptions.workerSetup`, `worker-setup.ts`), as a URL. */
  readonly setup?: string | undefined;
}

/** From a worker. */
export type FromWorker =
  | { readonly type: 'ready' }
  | { readonly type: 'progress'; readonly progress: RunProgress; readonly snapshot: ExporterSnapshots }
  /**
   * Its run was stopped from inside the thread (the program's setup said so: the scenario called
   * `process.exit`): the main thread stops the others, as a user's stop does. The run stops there.
   */
  | { readonly type: 'stopped' }
  /** One of its abort-on-fail thresholds failed (it is stopping): the main thread stops the others. */
  | { readonly type: 'aborted'; readonly by: string }
  /** The report of its schedule, before finishing (following, notifications) can wait on the target. */
  | { readonly type: 'scheduled'; readonly report: Report }
  /** A line for the run's warnings (a failed span export): said by the main thread. */
  | { readonly type: 'warn'; readonly text: string }
  | { readonly type: 'done'; readonly report: Report; readonly dataExhausted: readonly string[]; readonly snapshot: ExporterSnapshots }
  | { readonly type: 'failed'; readonly error: { readonly name: string; readonly code: string | undefined; readonly message: string } };

/**
 * To a worker: start the schedule (every worker is prepared), stop and drain, or cancel before
 * the first request (a stop while the run waited for `--start-at`: nothing runs, no report);
 * `abort`: end as aborted by the threshold `by` that another worker saw fail (not interrupted).
 */
export type ToWorker = { readonly type: 'go' } | { readonly type: 'stop' } | { readonly type: 'cancel' } | { readonly type: 'abort'; readonly by: string };
