/**
 * `executeRun`: one scenario against one target. Wires the executor's schedule to the client,
 * every response into the collectors (and exporters), and always ends in a report: on
 * schedule end, on a stop signal (Ctrl-C) and on an abort-on-fail threshold alike.
 */
import { type CallOptions, type Client, errorCodeOf, type StreamResult, type ApiResult } from '../api/index.js';
import { type Clock, createSystemClock } from '../core/clock.js';
import type { RequestSample } from '../core/types.js';
import { createCollectors } from '../collect/index.js';
import type { RequestTracer, RunMetrics } from '../export/index.js';
import { createExecutor, loadDurationMs, meanTargetRatePerS } from '../load/index.js';
import { buildReport, evaluateReportThresholds, type Report } from '../report/index.js';
import { createMixPicker, type ResolvedScenario } from '../scenario/index.js';
import { callOperation, flowOf, type OperationTargets } from './operations.js';
import { prepareTargets } from './prepare.js';
import { parseScenarioThresholds } from './thresholds.js';
import { createProgressMeter, type RunProgress } from './progress.js';
import { resolveFollowOptions, type FollowOptions } from './async-follow.js';
import type { NotificationTracking } from './notifications.js';
import { createRunExtras } from './run-extras.js';

/** What a run needs. The CLI builds it; tests build it with a fake or embedded target. */
export interface RunOptions {
  readonly scenario: ResolvedScenario;
  readonly client: Client;
  readonly target: { readonly baseUrl: string; readonly embedded: boolean };
  readonly clock?: Clock;
  readonly metrics?: RunMetrics;
  readonly tracer?: RequestTracer;
  readonly shard?: { readonly index: number; readonly count: number };
  /** Aborting it stops scheduling, drains in-flight requests for the grace period, and reports. */
  readonly stopSignal?: AbortSignal;
  /** Called about once a second with live figures. */
  readonly onProgress?: (p: RunProgress) => void;
  readonly progressIntervalMs?: number;
  /** Receiver of outbound notifications, started by the caller (so a target can be pointed at it first). */
  readonly notifications?: NotificationTracking;
  /** Following of runs that answer `running` with `GET /runs/{id}`; on with defaults, `false` turns it off. */
  readonly follow?: FollowOptions | false;
  /** After the run, compare `/analytics/usage` and session histories with what the client saw (default off). */
  readonly audit?: boolean;
}

/** How a run ended. */
export interface RunOutcome {
  readonly report: Report;
  /** Every threshold passed. */
  readonly passed: boolean;
}

/** Runs a scenario to its end (or its stop) and builds the report. Throws only before the first request. */
export async function executeRun(options: RunOptions): Promise<RunOutcome> {
  const { scenario, client } = options;
  const clock = options.clock ?? createSystemClock();
  const thresholds = parseScenarioThresholds(scenario);
  const targets: OperationTargets = await prepareTargets(client, scenario, options.stopSignal);
  const extras = createRunExtras({
    client,
    clock,
    notifications: options.notifications,
    follow: options.follow === false ? undefined : resolveFollowOptions(options.follow),
    // A shard sees only its share of what the service counts: the audit belongs to an unsharded run.
    audit: options.audit === true && (options.shard?.count ?? 1) === 1,
    sessionIds: [...new Set(scenario.mix.flatMap((m) => ((m.op === 'run' || m.op === 'stream') && m.sessionId !== undefined ? [m.sessionId] : [])))],
    metrics: options.metrics,
  });
  const { onResult, allResults } = extras;
  await extras.begin();

  const startedAtMs = clock.wallMs();
  const runStartNs = clock.nowNs();
  const collectors = createCollectors({ runStartNs, runStartWallMs: startedAtMs, objective: scenario.objective });
  const pick = createMixPicker(scenario.mix, scenario.seed);
  const metrics = options.metrics;
  const tracer = options.tracer;

  // One sample object for the whole run: it is filled and observed synchronously at each
  // completion, so no two requests ever share it at the same time.
  const sample: RequestSample = {
    op: 'run', flowId: undefined, intendedNs: 0, startNs: 0, headersNs: undefined, endNs: 0, status: 0,
    errorCode: undefined, rateLimit: undefined, violations: [], negative: false, runStatus: undefined, stream: undefined,
  };
  let cancelled = 0;
  let plainOpts: CallOptions = {};

  const job = async (intendedNs: number, signal: AbortSignal): Promise<void> => {
    const entry = pick();
    const flowId = flowOf(entry, targets);
    const span = tracer?.startSpan(entry.op, flowId);
    const traceparent = span?.traceparent;
    // Untraced calls share one options object (the signal is the run's, the same for every job).
    const opts: CallOptions = traceparent !== undefined ? { signal, headers: { traceparent } } : signal === plainOpts.signal ? plainOpts : (plainOpts = { signal });
    const result = await callOperation(client, entry, targets, opts);
    const code = errorCodeOf(result);
    // Requests we cut off ourselves at the end of the grace period say nothing about the service.
    if (signal.aborted && code === 'ABORTED') {
      cancelled++;
      return;
    }
    fillSample(sample, entry.op, flowId, entry.negative, intendedNs, result, code);
    if (result.ok && (entry.op === 'run') && typeof (result.value as { id?: unknown }).id === 'string') {
      targets.runIds.add((result.value as { id: string }).id);
    }
    const verdict = collectors.observe(sample);
    metrics?.observe(sample, verdict);
    span?.end(sample, verdict);
    // Only asynchronous work reaches the extras unless notifications or the audit need every result.
    if (onResult !== undefined && (allResults || (entry.op === 'run' && sample.runStatus === 'running') || entry.op === 'trigger')) {
      onResult({ op: entry.op, flowId, sessionId: entry.sessionId, input: typeof entry.input === 'string' ? entry.input : undefined, intendedNs, result });
    }
  };

  const executor = createExecutor(scenario.load, { clock, job, seed: scenario.seed, ...(options.shard ? { shard: options.shard } : {}) });
  const durationMs = loadDurationMs(scenario.load);
  const meter = createProgressMeter({ clock, runStartNs, durationMs, executor, collectors });
  let abortedBy: string | undefined;
  let interrupted = false;

  // The run ends at the first of: the schedule's end, a stop signal, a failed abort-on-fail threshold.
  let finish!: () => void;
  const stopped = new Promise<void>((resolve) => (finish = resolve));
  const interval = (options.progressIntervalMs ?? 1000) * 1e6;
  let tickTimer = clock.setTimer(runStartNs + interval, function tick() {
    const p = meter.sample();
    metrics?.setInFlight(p.inFlight);
    options.onProgress?.(p);
    if (thresholds.abortOnFail.length > 0) {
      const broken = evaluateReportThresholds(interimReport(), thresholds.abortOnFail).thresholds.find((r) => !r.passed);
      if (broken !== undefined) {
        abortedBy = broken.metric;
        finish();
        return;
      }
    }
    tickTimer = clock.setTimer(clock.nowNs() + interval, tick);
  });
  const onStop = (): void => {
    interrupted = true;
    finish();
  };
  if (options.stopSignal?.aborted === true) onStop();
  else options.stopSignal?.addEventListener('abort', onStop, { once: true });

  let droppedSeen = 0;
  function interimReport(): Report {
    const stats = executor.stats();
    metrics?.addDropped(stats.dropped - droppedSeen);
    droppedSeen = stats.dropped;
    return buildReport({
      scenario: scenario.name,
      interrupted,
      target: options.target,
      startedAtMs,
      endedAtMs: clock.wallMs(),
      load: {
        executor: scenario.load.executor,
        targetRatePerS: meanTargetRatePerS(scenario.load) / (options.shard?.count ?? 1),
        started: stats.started,
        dropped: stats.dropped,
        scheduleLagMs: stats.scheduleLag,
      },
      snapshot: collectors.snapshot(clock.nowNs()),
      thresholds: [],
      objective: scenario.objective,
    });
  }

  executor.start();
  await Promise.race([executor.scheduleEnded, stopped]);
  clock.clearTimer(tickTimer);
  options.stopSignal?.removeEventListener('abort', onStop);
  executor.stop();
  await executor.drain(scenario.load.gracefulStopMs);
  // drain() returns once the grace period is over; aborted requests settle right after.
  await executor.finished;

  // The report's time span is the schedule's; following, settling and auditing come after it.
  const interim = interimReport();
  const sections = await extras.finish({ interrupted, startedAtMs, stopSignal: options.stopSignal });
  const report = evaluateReportThresholds(
    {
      ...interim,
      ...sections,
      ...(abortedBy !== undefined ? { abortedBy } : {}),
      ...(cancelled > 0 ? { load: { ...interim.load, cancelled } } : {}),
    },
    thresholds.all,
  );
  return { report, passed: report.passed };
}

function fillSample(
  s: RequestSample,
  op: RequestSample['op'],
  flowId: string | undefined,
  negative: boolean,
  intendedNs: number,
  result: ApiResult<unknown> | StreamResult,
  code: RequestSample['errorCode'],
): void {
  const meta = result.meta;
  s.op = op;
  s.flowId = flowId;
  s.negative = negative;
  s.intendedNs = intendedNs;
  s.startNs = meta.startNs;
  s.headersNs = meta.headersNs;
  s.endNs = meta.endNs;
  s.status = meta.status;
  s.errorCode = code;
  s.rateLimit = meta.rateLimit;
  s.violations = result.violations;
  s.stream = 'timing' in result ? result.timing : undefined;
  // Only runs carry a run status; other values are not touched (a repeated body's value is parsed on first read).
  const status = result.ok && (op === 'run' || op === 'getRun') ? (result.value as { status?: unknown }).status : undefined;
  s.runStatus = status === 'running' || status === 'completed' || status === 'failed' ? status : undefined;
}
