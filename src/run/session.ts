/**
 * The run session: one run of a resolved plan, whatever its thread count. It takes the plan and
 * the wishes — clients, phases (following, notifications, the audit, the generator's watch),
 * exporters (Prometheus, OpenTelemetry, the live dashboard), outputs, `workers: N` — and owns
 * what it builds from them: the per-token clients (`run-clients.ts`), the started exporters
 * (`exporters/`), and the fan-out over worker threads (`workers/`). In one thread it drives the
 * engine (`engine.ts`); over N it sends each worker the plan as data and the clients as their
 * own options, and its outputs in this thread hear the merged progress and reports. The CLI's
 * `run` and a program's `executeRun` take the same path.
 */
import type { Client } from '../api/index.js';
import type { Clock } from '../core/clock.js';
import { ConfigError, InvalidArgumentError } from '../core/errors.js';
import { EMBEDDED_TARGET_NAME, isTargetName, TARGET_NAME_HELP, targetNameOf } from '../core/target-name.js';
import { planOf, type ResolvedRunPlan, type ResolvedScenario, type RowSource } from '../scenario/index.js';
import type { FollowOptions } from './async-follow.js';
import { runEngine, type RunOutcome } from './engine.js';
import type { TextSink } from './exporters/exporter.js';
import { startExporters, type ExporterWishes, type RunExporters } from './exporters/exporter-registry.js';
import type { NotificationTracking } from './notifications.js';
import type { RunOutput } from './output.js';
import type { RunPhase } from './phase.js';
import type { RunProgress } from './progress.js';
import { clientSpecsOf, closeRunClients, createRunClients, type ClientWishes, type RunClients } from './run-clients.js';
import { createRunPhases } from './run-phases.js';
import type { RunShard } from './run-shard.js';
import type { WorkerInput } from './workers/worker-protocol.js';

/** What a run is, and what it should do besides measuring. */
export interface RunOptions {
  /** One scenario, or a plan of several that run at once. */
  readonly scenario: ResolvedScenario | ResolvedRunPlan;
  /** The target as the report shows it. */
  readonly target: { readonly baseUrl: string; readonly embedded: boolean };
  /**
   * The target's name on what the exporters send (the `target` label of every series, the
   * Pushgateway group): letters, digits, `.`, `_`, `-`, `:`. Default: the base URL's host, or
   * `reference-service` for the embedded service.
   */
  readonly targetName?: string | undefined;
  /** The client of every scenario that `clients` does not name (yours: the run never closes it). Or give `connect`. */
  readonly client?: Client | undefined;
  /** Clients by scenario name (tenants: each its own token). */
  readonly clients?: Readonly<Record<string, Client>> | undefined;
  /** Instead of `client`: the clients the session builds (one per token, sized to the scenarios) and closes. */
  readonly connect?: ClientWishes | undefined;
  /**
   * Worker threads the schedule is split over (default 1: this thread). Each runs shard i of N
   * with its own connections (the clients rebuilt from their own options) and collectors; the
   * reports merge exactly. Over threads: outputs here hear `tick`, `scheduleEnded` and `end`
   * (samples stay in the workers, where the exporters' halves hear them); following and the
   * generator's watch run in each worker; the audit, notifications, `phases`, `clock` and `data`
   * need one thread. A scenario with a journey (code) must come from a file (`loadScenario`).
   */
  readonly workers?: number | undefined;
  /** Follow runs that answer `running` to their end with `GET /runs/{id}` (`true`: default options); off by default. */
  readonly follow?: boolean | FollowOptions | undefined;
  /** After the run, compare `/analytics/usage` and session histories with what the client saw; off by default. */
  readonly audit?: boolean | undefined;
  /** Match the outbound notifications a started receiver gets (`startNotificationTracking`). */
  readonly notifications?: NotificationTracking | undefined;
  /** Watch the generator itself (event-loop delay, CPU) and warn when it limited the load; off by default. */
  readonly generator?: boolean | undefined;
  /** Other phases, after those the wishes make (one thread only). */
  readonly phases?: readonly RunPhase[] | undefined;
  /** Exporters to start: `prometheus` (/metrics, Pushgateway), `otel` (spans), `dashboard`. */
  readonly exporters?: ExporterWishes | undefined;
  /** Called with the live figures about once a second. */
  readonly onProgress?: ((p: RunProgress) => void) | undefined;
  /** Other outputs (a report writer), after the exporters'. */
  readonly outputs?: readonly RunOutput[] | undefined;
  /** Where exporters say what they serve (default: nowhere). */
  readonly log?: TextSink | undefined;
  /** Where what fails later is said: a failed push, a failed span export (default: nowhere). */
  readonly warn?: TextSink | undefined;
  /** The environment: `OTEL_*`, and `${NAME}` for a worker that loads the scenario file (default `process.env`). */
  readonly env?: Readonly<Record<string, string | undefined>> | undefined;
  /** Rows of scenarios' `data`, by scenario name; a scenario's own `data` is read when absent here. */
  readonly data?: Readonly<Record<string, RowSource>> | undefined;
  readonly clock?: Clock | undefined;
  /**
   * This process's shard of a distributed run (split again over the workers); with a fingerprint
   * its report says which shard of which run it is (`shard`), so a merge can check it.
   */
  readonly shard?: RunShard | undefined;
  /**
   * The wall-clock instant (ms) the run's shards share (`--start-at`): a run that starts more
   * than `JOIN_LATE_AFTER_MS` after it joins its schedule in phase (each worker thread too),
   * the arrivals already due counted as `load.missed`.
   */
  readonly startAtMs?: number | undefined;
  /** Aborting it stops scheduling, drains in-flight requests for the grace period, and reports. */
  readonly stopSignal?: AbortSignal | undefined;
  /** Time between ticks (default 1000 ms). */
  readonly progressIntervalMs?: number | undefined;
  /** Longest time the requests before the run (finding a flow, a session, a run id) may take together (default 30 s). */
  readonly prepareTimeoutMs?: number | undefined;
  /** Longest time the steps after the schedule (following, notifications, audit) may take (default 60 s). */
  readonly finishTimeoutMs?: number | undefined;
  /** Awaited once everything is prepared, before the clock starts (every worker's; `--start-at` waits here). */
  readonly ready?: (() => Promise<void>) | undefined;
  /**
   * Called at once when an abort-on-fail threshold of this run fails (before draining), with its
   * key: the processes of a distributed run can stop one another (one thread only).
   */
  readonly onAbort?: ((threshold: string) => void) | undefined;
  /**
   * Aborted when another part of the same run failed an abort-on-fail threshold, its key the
   * signal's reason: this run ends as if its own had (`abortedBy`), and still reports (one thread only).
   */
  readonly abortSignal?: AbortSignal | undefined;
  /** The worker threads' entry module (default bin/flowgauge-worker.mjs): a bundle brings its own. */
  readonly workerEntry?: URL | undefined;
  /**
   * A module each worker thread imports before anything of the scenario, and whose
   * `setupWorker()` export returns a `WorkerSetup` (a stop signal, phases) for the worker's run:
   * what the program must have in place in every thread that runs scenario code (the CLI guards
   * `process.exit` there). Unused by a run in one thread, which is the program's own.
   */
  readonly workerSetup?: URL | undefined;
}

/** A run, set up: clients built, exporters listening. */
export interface RunSession {
  /** Runs the plan to its end (or its stop) and resolves to its outcome. Throws only before the first request. Once. */
  run(): Promise<RunOutcome>;
  /** Closes what the session started (exporters: final push, servers; the clients it built). Never throws for them. */
  close(): Promise<void>;
}

const QUIET: TextSink = { write: () => undefined };

/** What needs the whole run in one thread, when given beside `workers` above 1. */
function checkSplittable(o: RunOptions, workers: number): void {
  const oneThread = (
    [
      ['notifications', o.notifications !== undefined, 'each notification must meet the completion it reports, which one of the workers saw'],
      ['phases', (o.phases ?? []).length > 0, 'a phase object cannot be sent to a worker thread'],
      ['clock', o.clock !== undefined, 'each worker thread runs on its own system clock'],
      ['data', o.data !== undefined, "each worker thread reads the scenarios' own data"],
      ['onAbort', o.onAbort !== undefined, 'the workers stop one another'],
      ['abortSignal', o.abortSignal !== undefined, 'the workers stop one another'],
    ] as const
  ).filter(([, given]) => given);
  if (oneThread.length > 0) {
    throw new ConfigError(oneThread.map(([path, , why]) => ({ path, message: `needs the run in one thread (${why}); give workers: 1, or split the run over processes (shard) and merge the reports` })), `run over ${workers} worker threads`);
  }
}

/** Sets up a run: builds its clients (when `connect` is given) and starts its exporters. */
export async function createRunSession(o: RunOptions): Promise<RunSession> {
  const plan = planOf(o.scenario);
  const workers = o.workers ?? 1;
  if (!Number.isInteger(workers) || workers < 1) throw new InvalidArgumentError(`workers must be a whole number >= 1, got ${workers}`);
  if (workers > 1) checkSplittable(o, workers);
  if ((o.client === undefined) === (o.connect === undefined)) throw new InvalidArgumentError('give the run a client (and clients) or connect, one of them');
  if (o.targetName !== undefined && !isTargetName(o.targetName)) throw new InvalidArgumentError(`targetName must be ${TARGET_NAME_HELP}, got "${o.targetName}"`);
  const targetName = o.targetName ?? (o.target.embedded ? EMBEDDED_TARGET_NAME : targetNameOf(o.target.baseUrl));
  const built = o.connect === undefined ? undefined : createRunClients(plan, o.connect);
  const clients: RunClients = built ?? { client: o.client as Client, clients: o.clients ?? {} };
  const env = o.env ?? process.env;
  const warn = o.warn ?? QUIET;
  let exporters: RunExporters;
  let split: Pick<WorkerInput, 'plan' | 'journeys' | 'clients'> | undefined;
  try {
    // What the workers get is checked before anything listens: the plan as data, the clients as their options.
    // The workers' code is loaded by a run over workers only.
    if (workers > 1) split = { ...(await import('./workers/worker-plan.js')).planForWorkers(plan, env), clients: clientSpecsOf(clients, workers) };
    exporters = await startExporters(o.exporters ?? {}, { plan, workers, shard: o.shard, targetName, log: o.log ?? QUIET, warn, env, notifications: o.notifications });
  } catch (err) {
    if (built !== undefined) await closeRunClients(built);
    throw err;
  }
  const progress: RunOutput[] = o.onProgress === undefined ? [] : [{ name: 'progress', tick: o.onProgress }];
  const follow = o.follow ?? false;
  let ran = false;

  const inThread = (): Promise<RunOutcome> =>
    runEngine({
      scenario: plan,
      ...clients,
      target: o.target,
      phases: [...createRunPhases({ follow, notifications: o.notifications, audit: o.audit, generator: o.generator }), ...(o.phases ?? [])],
      outputs: [...exporters.outputs, ...progress, ...(o.outputs ?? [])],
      ...(o.data !== undefined ? { data: o.data } : {}),
      ...(o.clock !== undefined ? { clock: o.clock } : {}),
      ...(o.shard !== undefined ? { shard: o.shard } : {}),
      ...(o.startAtMs !== undefined ? { startAtMs: o.startAtMs } : {}),
      ...(o.stopSignal !== undefined ? { stopSignal: o.stopSignal } : {}),
      ...(o.progressIntervalMs !== undefined ? { progressIntervalMs: o.progressIntervalMs } : {}),
      ...(o.prepareTimeoutMs !== undefined ? { prepareTimeoutMs: o.prepareTimeoutMs } : {}),
      ...(o.finishTimeoutMs !== undefined ? { finishTimeoutMs: o.finishTimeoutMs } : {}),
      ...(o.ready !== undefined ? { ready: o.ready } : {}),
      ...(o.onAbort !== undefined ? { onAbort: o.onAbort } : {}),
      ...(o.abortSignal !== undefined ? { abortSignal: o.abortSignal } : {}),
    });

  const overWorkers = async (brief: NonNullable<typeof split>): Promise<RunOutcome> =>
    (await import('./workers/run-in-workers.js')).runInWorkers({
      count: workers,
      shard: o.shard,
      input: {
        ...brief,
        target: o.target,
        startAtMs: o.startAtMs,
        // The audit belongs to the whole run: a worker sees its share only.
        phases: { follow: follow === true ? {} : follow, generator: o.generator === true },
        exports: exporters.briefs,
        progressIntervalMs: o.progressIntervalMs,
        prepareTimeoutMs: o.prepareTimeoutMs,
        finishTimeoutMs: o.finishTimeoutMs,
        setup: o.workerSetup?.href,
      },
      stopSignal: o.stopSignal ?? new AbortController().signal,
      ready: o.ready,
      outputs: [...progress, ...(o.outputs ?? []), { name: 'exporters', tick: (p) => exporters.tick(p) }],
      onSnapshot: (worker, s) => exporters.collect(worker, s),
      onWarn: (text) => warn.write(text),
      entry: o.workerEntry,
    });

  return {
    async run() {
      if (ran) throw new InvalidArgumentError('a run session runs once');
      ran = true;
      const outcome = await (split !== undefined ? overWorkers(split) : inThread());
      exporters.end(outcome.report);
      return outcome;
    },
    async close() {
      await exporters.close();
      // Also when the run never began (a target that is not the service): kept-alive
      // connections must not hold the process open.
      if (built !== undefined) await closeRunClients(built);
    },
  };
}

/**
 * Runs a plan to its end (or its stop) and builds the report: `createRunSession`, `run`, and
 * `close`. Throws only before the first request.
 */
export async function executeRun(options: RunOptions): Promise<RunOutcome> {
  const session = await createRunSession(options);
  try {
    return await session.run();
  } finally {
    await session.close();
  }
}
