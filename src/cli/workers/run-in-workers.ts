/**
 * `flowgauge run --workers N`: the schedule split over N worker threads, each with its own
 * connections and collectors (shard i of N: every N-th arrival, so the whole stays evenly
 * spaced). The workers start their clocks together once all are prepared; a stop is passed to
 * every one and each drains; their reports merge exactly (histograms, not percentiles). A worker
 * that dies is said in the report (interrupted, a WORKER_LOST warning) and the rest still count.
 */
import { Worker } from 'node:worker_threads';
import { FlowgaugeError, type FlowgaugeErrorCode } from '../../core/errors.js';
import { mergeReports, type Report } from '../../report/index.js';
import { mergeProgress, type RunProgress } from '../../run/index.js';
import type { FromWorker, ToWorker, WorkerInput, WorkerSnapshot } from './worker-protocol.js';

/** Options of `runInWorkers`. */
export interface WorkerRunOptions {
  readonly count: number;
  /** Every worker's brief but its shard. */
  readonly input: Omit<WorkerInput, 'shard'>;
  readonly stopSignal: AbortSignal;
  /**
   * This process's shard of a distributed run, split again over the workers: worker w runs
   * shard `index + count·w` of `count·N`, which are exactly the arrivals of shard `index`.
   */
  readonly shard?: { readonly index: number; readonly count: number } | undefined;
  /** Called with the merged progress about once a second. */
  readonly onProgress?: ((p: RunProgress) => void) | undefined;
  /** Called with each worker's snapshot (metrics, dashboard window) as it arrives, before the merged progress. */
  readonly onSnapshot?: ((worker: number, s: WorkerSnapshot) => void) | undefined;
  /** The worker's entry module (default bin/flowgauge-worker.mjs): a bundle brings its own. */
  readonly entry?: URL | undefined;
}

/** How a run over workers ended: `executeRun`'s outcome, merged. */
export interface WorkerRunOutcome {
  readonly report: Report;
  readonly passed: boolean;
  readonly dataExhausted: readonly string[];
}

interface WorkerSlot {
  readonly worker: Worker;
  readonly ended: Promise<void>;
  ready: boolean;
  progress: RunProgress | undefined;
  done: Extract<FromWorker, { type: 'done' }> | undefined;
  failed: Extract<FromWorker, { type: 'failed' }>['error'] | undefined;
  lost: string | undefined;
}

/** The worker's entry: bin/ sits three levels above this file in a checkout (src/) and in the package (dist/). */
const WORKER_ENTRY = new URL('../../../bin/flowgauge-worker.mjs', import.meta.url);

const KNOWN_CODES: ReadonlySet<string> = new Set<FlowgaugeErrorCode>(['FG_CONFIG_INVALID', 'FG_INVALID_ARGUMENT', 'FG_FILE_NOT_FOUND', 'FG_TARGET_UNREACHABLE', 'FG_INTERRUPTED']);

/** A worker's failure before its first request, thrown again here with its code (its exit code). */
function rethrown(e: NonNullable<WorkerSlot['failed']>): Error {
  if (e.code !== undefined && KNOWN_CODES.has(e.code)) return new FlowgaugeError(e.code as FlowgaugeErrorCode, e.message);
  return new FlowgaugeError('FG_INTERNAL', `a worker failed before the run: ${e.name}: ${e.message}`);
}

/** Runs the schedule on `count` worker threads and merges what they measured. */
export async function runInWorkers(o: WorkerRunOptions): Promise<WorkerRunOutcome> {
  const slots: WorkerSlot[] = [];
  const post = (m: ToWorker): void => {
    for (const s of slots) if (s.done === undefined && s.lost === undefined && s.failed === undefined) s.worker.postMessage(m);
  };
  let released = false;
  const releaseWhenReady = (): void => {
    if (!released && slots.every((s) => s.ready || s.lost !== undefined || s.failed !== undefined)) {
      released = true;
      // A worker that failed while preparing fails the run before anyone starts.
      post(slots.some((s) => s.failed !== undefined || s.lost !== undefined) ? { type: 'stop' } : { type: 'go' });
    }
  };
  const outer = o.shard ?? { index: 0, count: 1 };
  for (let index = 0; index < o.count; index++) {
    const shard = { index: outer.index + outer.count * index, count: outer.count * o.count };
    const worker = new Worker(o.entry ?? WORKER_ENTRY, { workerData: { ...o.input, shard } satisfies WorkerInput });
    let slot!: WorkerSlot;
    const ended = new Promise<void>((resolve) => {
      worker.on('message', (m: FromWorker) => {
        if (m.type === 'ready') slot.ready = true;
        else if (m.type === 'progress') {
          slot.progress = m.progress;
          o.onSnapshot?.(index, m.snapshot);
          // The first live worker paces the merged line, so it comes about once a second.
          if (slots.find((s) => s.done === undefined && s.lost === undefined) === slot) {
            const merged = mergeProgress(slots.flatMap((s) => (s.progress === undefined ? [] : [s.progress])));
            if (merged !== undefined) o.onProgress?.(merged);
          }
        } else if (m.type === 'done') {
          slot.done = m;
          o.onSnapshot?.(index, m.snapshot);
        }
        else slot.failed = m.error;
        releaseWhenReady();
      });
      worker.on('error', (err) => {
        slot.lost ??= `${err.name}: ${err.message}`;
      });
      worker.on('exit', (code) => {
        if (slot.done === undefined && slot.failed === undefined) slot.lost ??= `exited with code ${code}`;
        releaseWhenReady();
        resolve();
      });
    });
    slot = { worker, ended, ready: false, progress: undefined, done: undefined, failed: undefined, lost: undefined };
    slots.push(slot);
  }
  const onStop = (): void => post({ type: 'stop' });
  o.stopSignal.addEventListener('abort', onStop, { once: true });
  try {
    await Promise.all(slots.map((s) => s.ended));
  } finally {
    o.stopSignal.removeEventListener('abort', onStop);
  }

  const failed = slots.find((s) => s.failed !== undefined)?.failed;
  if (failed !== undefined) throw rethrown(failed);
  const done = slots.flatMap((s, i) => (s.done === undefined ? [] : [{ i, report: s.done.report, dataExhausted: s.done.dataExhausted }]));
  const lost = slots.flatMap((s, i) => (s.lost === undefined ? [] : [{ i, reason: s.lost, started: s.progress?.started ?? 0 }]));
  if (done.length === 0) throw new FlowgaugeError('FG_INTERNAL', `every worker ended without a report: ${lost.map((l) => `worker ${l.i + 1}: ${l.reason}`).join('; ')}`);

  const merged = mergeReports(done.map((d) => d.report), { names: done.map((d) => `worker ${d.i + 1}`) });
  const dataExhausted = [...new Set(done.flatMap((d) => d.dataExhausted))];
  if (lost.length === 0) return { report: merged, passed: merged.passed, dataExhausted };
  const warnings = lost.map((l) => ({
    code: 'WORKER_LOST',
    message: `worker ${l.i + 1} of ${o.count} ended without its report (${l.reason}); its share of the schedule (${l.started} started by its last progress) is not in these figures: run again, or with fewer --workers`,
  }));
  const report: Report = { ...merged, interrupted: true, passed: false, warnings: [...(merged.warnings ?? []), ...warnings] };
  return { report, passed: false, dataExhausted };
}
