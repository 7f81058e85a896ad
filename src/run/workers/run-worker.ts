/**
 * One worker thread of a run over worker threads: takes the plan as the main thread resolved it
 * (loading the scenario file only for its journeys), rebuilds the run's clients from their own
 * options with its share of the connections, runs its shard of the schedule with its own
 * collectors, phases and exporters' halves, and sends back its progress, its exporters'
 * snapshots and its report. It starts the clock only when the main thread says every worker is
 * prepared, and drains when told to stop. Failures before the first request go back as data,
 * never thrown past the thread.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { FlowgaugeError } from '../../core/errors.js';
import { runEngine } from '../engine.js';
import { startWorkerExporters, type WorkerExporters } from '../exporters/exporter-registry.js';
import type { RunOutput } from '../output.js';
import { closeRunClients, clientsFromSpecs } from '../run-clients.js';
import { createRunPhases } from '../run-phases.js';
import { planInWorker } from './worker-plan.js';
import { loadWorkerSetup } from './worker-setup.js';
import type { FromWorker, ToWorker, WorkerInput } from './worker-protocol.js';

const port = parentPort;
const input = workerData as WorkerInput;
const send = (m: FromWorker): void => port?.postMessage(m);

const stop = new AbortController();
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

/** Sends its progress with its exporters' snapshots, and the report of its schedule. */
function reporter(exporters: WorkerExporters): RunOutput {
  return {
    name: 'worker-progress',
    tick: (progress) => void exporters.snapshot().then((snapshot) => send({ type: 'progress', progress, snapshot })),
    scheduleEnded: (report) => send({ type: 'scheduled', report }),
  };
}

async function runShard(): Promise<void> {
  // Before any of the scenario's code is loaded: the program's own setup of the thread (the CLI's guard on process.exit).
  const setup = await loadWorkerSetup(input.setup);
  setup.stopSignal?.addEventListener(
    'abort',
    () => {
      stop.abort();
      send({ type: 'stopped' });
    },
    { once: true },
  );
  const plan = await planInWorker(input);
  const clients = clientsFromSpecs(input.clients);
  let exporters: WorkerExporters | undefined;
  try {
    exporters = await startWorkerExporters(input.exports, { write: (text) => send({ type: 'warn', text }) });
    const outcome = await runEngine({
      scenario: plan,
      ...clients,
      target: input.target,
      shard: input.shard,
      ...(input.startAtMs !== undefined ? { startAtMs: input.startAtMs } : {}),
      stopSignal: stop.signal,
      abortSignal: peerAbort.signal,
      onAbort: (by) => send({ type: 'aborted', by }),
      // The audit belongs to the whole run, not a shard; the engine leaves it out of shards anyway.
      phases: [...createRunPhases({ follow: input.phases.follow, generator: input.phases.generator }), ...(setup.phases ?? [])],
      // Its window is taken by the tick that sends it: the exporters' outputs come first.
      outputs: [...exporters.outputs, reporter(exporters)],
      ...(input.progressIntervalMs !== undefined ? { progressIntervalMs: input.progressIntervalMs } : {}),
      ...(input.prepareTimeoutMs !== undefined ? { prepareTimeoutMs: input.prepareTimeoutMs } : {}),
      ...(input.finishTimeoutMs !== undefined ? { finishTimeoutMs: input.finishTimeoutMs } : {}),
      ready: async () => {
        send({ type: 'ready' });
        await released;
      },
    });
    send({ type: 'done', report: outcome.report, dataExhausted: outcome.dataExhausted, snapshot: await exporters.snapshot() });
  } finally {
    await exporters?.close();
    await closeRunClients(clients);
  }
}

runShard().then(
  () => port?.close(),
  (err: unknown) => {
    const e = err instanceof Error ? err : new FlowgaugeError('FG_INTERNAL', String(err));
    send({ type: 'failed', error: { name: e.name, code: (e as { code?: unknown }).code === undefined ? undefined : String((e as { code?: unknown }).code), message: e.message } });
    port?.close();
  },
);
