/**
 * One worker thread of `flowgauge run --workers N`: loads the scenario itself, runs its shard of
 * the schedule with its own connections and collectors, and sends back its progress and its
 * report. It starts the clock only when the main thread says every worker is prepared, and
 * drains when told to stop. Failures before the first request go back as data, never thrown
 * past the thread.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { FlowgaugeError } from '../../core/errors.js';
import { createClient, type Client } from '../../api/index.js';
import { createRequestTracer, createRunMetrics, enableOtlpExport, type MetricsSnapshot, type OtlpExport, type RunMetrics } from '../../export/index.js';
import { createDashboardWindowObserver, createRunObservers, executeRun, type DashboardWindow, type RunObserver } from '../../run/index.js';
import { loadScenarioFile, planOf } from '../../scenario/index.js';
import { guardProcessExit } from '../exit-guard.js';
import { resolveWithFlags } from '../run-input.js';
import type { FromWorker, ToWorker, WorkerInput, WorkerSnapshot } from './worker-protocol.js';

const port = parentPort;
const input = workerData as WorkerInput;
const send = (m: FromWorker): void => port?.postMessage(m);

const stop = new AbortController();
// process.exit in the scenario's code would end this thread, its share lost: it stops the shard, reported, instead.
const guard = guardProcessExit();
guard.signal.addEventListener('abort', () => stop.abort(), { once: true });
/** Aborted, with the threshold's key, when another worker's abort-on-fail threshold failed. */
const peerAbort = new AbortController();
let go!: () => void;
let cancel!: (err: Error) => void;
const released = new Promise<void>((resolve, reject) => {
  go = resolve;
  cancel = reject;
});
// Read by the run's `ready` hook; a cancel that comes before it is not an unhandled rejection.
released.catch(() => undefined);
port?.on('message', (m: ToWorker) => {
  if (m.type === 'cancel') cancel(new FlowgaugeError('FG_INTERRUPTED', 'cancelled before the first request'));
  if (m.type === 'stop') stop.abort();
  if (m.type === 'abort') peerAbort.abort(m.by);
  go();
});

/**
 * The worker's own exporters, and the observers that send its progress with a snapshot of them:
 * the dashboard's window fills from samples, and is taken by the tick that sends it.
 */
function workerExports(metrics: RunMetrics | undefined): { observers: RunObserver[]; snapshot(): Promise<WorkerSnapshot> } {
  let window: DashboardWindow | undefined;
  const snapshot = async (): Promise<WorkerSnapshot> => {
    const m = metrics === undefined ? undefined : ((await metrics.registry.getMetricsAsJSON()) as MetricsSnapshot);
    const w = window;
    window = undefined;
    return { metrics: m, dashboard: w };
  };
  const observers: RunObserver[] = [];
  if (input.exports.dashboard === true) observers.push(createDashboardWindowObserver((w) => (window = w)));
  observers.push({
    name: 'worker-progress',
    tick: (progress) => void snapshot().then((s) => send({ type: 'progress', progress, snapshot: s })),
    scheduleEnded: (report) => send({ type: 'scheduled', report }),
  });
  return { observers, snapshot };
}

async function runShard(): Promise<void> {
  const plan = planOf(resolveWithFlags(await loadScenarioFile(input.file, { env: input.env }), input.overrides, input.file));
  const { baseUrl } = input.target;
  const client = createClient({ ...input.client, baseUrl, token: input.token, connections: input.connections.total });
  const clients: Record<string, Client> = {};
  if (plan.scenarios.length > 1) {
    // One client per token, as in one thread: scenarios with the same token are one tenant.
    const byToken = new Map<string, Client>();
    for (const s of plan.scenarios) {
      const token = input.tokens[s.name] ?? input.token;
      const shared = byToken.get(token);
      const connections = plan.scenarios.filter((o) => (input.tokens[o.name] ?? input.token) === token).reduce((n, o) => n + (input.connections.byScenario[o.name] ?? 1), 0);
      const c = shared ?? createClient({ ...input.client, baseUrl, token, connections });
      byToken.set(token, c);
      clients[s.name] = c;
    }
  }
  const metrics = input.exports.metrics === undefined ? undefined : createRunMetrics(input.exports.metrics);
  let otlp: OtlpExport | undefined;
  try {
    otlp = input.exports.otel === undefined ? undefined : await enableOtlpExport(input.exports.otel, undefined, (m) => process.stderr.write(m));
    const exported = workerExports(metrics);
    const outcome = await executeRun({
      scenario: plan,
      client,
      clients,
      target: input.target,
      shard: input.shard,
      ...(input.startAtMs !== undefined ? { startAtMs: input.startAtMs } : {}),
      stopSignal: stop.signal,
      abortSignal: peerAbort.signal,
      onAbort: (by) => send({ type: 'aborted', by }),
      // The audit belongs to the whole run, not a shard; the engine leaves it out of shards anyway.
      observers: createRunObservers({
        metrics,
        tracer: otlp === undefined ? undefined : createRequestTracer(otlp.tracer),
        follow: input.follow,
        audit: false,
        extra: [guard.observer, ...exported.observers],
      }),
      ready: async () => {
        send({ type: 'ready' });
        await released;
      },
    });
    send({ type: 'done', report: outcome.report, dataExhausted: outcome.dataExhausted, snapshot: await exported.snapshot() });
  } finally {
    await otlp?.shutdown();
    await Promise.all([...new Set([client, ...Object.values(clients)])].map((c) => c.close()));
  }
}

runShard().then(
  () => port?.close(),
  (err: unknown) => {
    const e = err instanceof Error ? err : new Error(String(err));
    send({ type: 'failed', error: { name: e.name, code: (e as { code?: unknown }).code === undefined ? undefined : String((e as { code?: unknown }).code), message: e.message } });
    port?.close();
  },
);
