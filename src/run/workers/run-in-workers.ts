/**
 * A run split over N worker threads (`workers: N`, `flowgauge run --workers N`), each with its
 * own connections and collectors (shard i of N: every N-th arrival, so the whole stays evenly
 * spaced). The workers start their clocks together once all are prepared; a stop is passed to
 * every one and each drains; their reports merge exactly (histograms, not percentiles). A worker
 * that dies is said in the report (interrupted, a WORKER_LOST warning) and the rest still count.
 * It is one run, as one thread's: the session's outputs in this thread hear the merged progress,
 * the schedules' report and the final report, and the outcome is the same; an abort-on-fail
 * threshold one worker sees fail stops them all; each warning is said once; `load.workers`
 * counts the threads.
 */
import { Worker } from 'node:worker_threads';
import { FlowgaugeError, type FlowgaugeErrorCode } from '../../core/errors.js';
import { mergeReports } from '../../report/merge.js';
import { reportVerdict } from '../../report/verdict.js';
import type { Report, RunWarning } from '../../report/index.js';
import type { RunOutcome } from '../engine.js';
import type { ExporterSnapshots } from '../exporters/exporter-registry.js';
import type { RunOutput } from '../output.js';
import { mergeProgress, type RunProgress } from '../progress.js';
import { shardOfReport, type RunShard } from '../run-shard.js';
import type { FromWorker, ToWorker, WorkerInput } from './worker-protocol.js';
import { packageFile } from '../../core/package-root.js';

/** Options of `runInWorkers`. */
export interface WorkerRunOptions {
  readonly count: number;
  /** Every worker's brief but its shard. */
  readonly input: Omit<WorkerInput, 'shard'>;
  readonly stopSignal: AbortSignal;
  /**
   * This process's shard of a distributed run, split again over the workers: worker w runs
   * shard `index + count·w` of `count·N`, which are exactly the arrivals of shard `index`. Its
   * identity (run id, fingerprint) is the merged report's `shard`, not the workers'.
   */
  readonly shard?: RunShard | undefined;
  /**
   * The session's outputs in this thread: `tick` gets the workers' merged progress about once a
   * second, `scheduleEnded` the merged report of their schedules, `end` the final merged report.
   * Samples, phases and their sections happen in the workers, each as its `input` asks.
   */
  readonly outputs?: readonly RunOutput[] | undefined;
  /** Called with each worker's exporter snapshots as they arrive, before the merged progress. */
  readonly onSnapshot?: ((worker: number, s: ExporterSnapshots) => void) | undefined;
  /** A worker's warning line (a failed span export). */
  readonly onWarn?: ((text: string) => void) | undefined;
  /** The worker's entry module (default bin/flowgauge-worker.mjs): a bundle brings its own. */
  readonly entry?: URL | undefined;
  /**
   * Awaited once every worker is prepared, before any starts its clock (`--start-at` waits here).
   * When it rejects, the workers are cancelled before their first request and the run rejects with its error.
   */
  readonly ready?: (() => Promise<void>) | undefined;
}

interface WorkerSlot {
  readonly worker: Worker;
  readonly ended: Promise<void>;
  ready: boolean;
  progress: RunProgress | undefined;
  done: Extract<FromWorker, { type: 'done' }> | undefined;
  /** The report of its schedule, before its finishing. */
  scheduled: Report | undefined;
  failed: Extract<FromWorker, { type: 'failed' }>['error'] | undefined;
  lost: string | undefined;
}

/** The worker's entry, the same file in a checkout and in the package. */
const WORKER_ENTRY = packageFile('bin/flowgauge-worker.mjs');

const KNOWN_CODES: ReadonlySet<string> = new Set<FlowgaugeErrorCode>(['FG_CONFIG_INVALID', 'FG_INVALID_ARGUMENT', 'FG_FILE_NOT_FOUND', 'FG_TARGET_UNREACHABLE', 'FG_TARGET_PROTOCOL', 'FG_INTERRUPTED']);

/** A worker's failure before its first request, thrown again here with its code (its exit code). */
function rethrown(e: NonNullable<WorkerSlot['failed']>): Error {
  if (e.code !== undefined && KNOWN_CODES.has(e.code)) return new FlowgaugeError(e.code as FlowgaugeErrorCode, e.message);
  return new FlowgaugeError('FG_INTERNAL', `a worker failed before the run: ${e.name}: ${e.message}`);
}

/** Runs the schedule on `count` worker threads and merges what they measured. */
export async function runInWorkers(o: WorkerRunOptions): Promise<RunOutcome> {
  const slots: WorkerSlot[] = [];
  const outputs = o.outputs ?? [];
  const post = (m: ToWorker, except?: WorkerSlot): void => {
    for (const s of slots) if (s !== except && s.done === undefined && s.lost === undefined && s.failed === undefined) s.worker.postMessage(m);
  };
  /** The first abort-on-fail threshold a worker saw fail: every other worker is stopped by it. */
  let abortedBy: string | undefined;
  const lostSoFar = () => slots.flatMap((s, i) => (s.lost === undefined ? [] : [{ i, reason: s.lost, started: s.progress?.started ?? 0 }]));
  // The schedules' report goes to the observers once every worker has sent its own (or is gone),
  // before finishing can wait on the target: a run whose finishing hangs still leaves its figures.
  let scheduleReported: Promise<void> = Promise.resolve();
  let scheduleFailed: { readonly error: unknown } | undefined;
  let scheduleSent = false;
  const reportSchedules = (): void => {
    if (scheduleSent || !slots.every((s) => s.scheduled !== undefined || s.done !== undefined || s.lost !== undefined || s.failed !== undefined)) return;
    scheduleSent = true;
    const parts = slots.flatMap((s, i) => (s.scheduled === undefined ? [] : [{ worker: i, report: s.scheduled }]));
    if (parts.length === 0 || slots.some((s) => s.failed !== undefined)) return;
    let report: Report;
    try {
      report = wholeReport(parts, o.count, lostSoFar(), abortedBy, o.shard);
    } catch {
      return; // the final merge says what is wrong
    }
    // Awaited before the end; an output that throws fails the run then, as in one thread.
    scheduleReported = (async () => {
      for (const out of outputs) await out.scheduleEnded?.(report);
    })().catch((error: unknown) => {
      scheduleFailed = { error };
    });
  };
  let released = false;
  /** While `o.ready` is awaited: a stop then cancels the wait, not the workers' runs. */
  let holding = false;
  let cancelled: unknown;
  const releaseWhenReady = (): void => {
    if (!released && slots.every((s) => s.ready || s.lost !== undefined || s.failed !== undefined)) {
      released = true;
      // A worker that failed while preparing fails the run before anyone starts.
      if (slots.some((s) => s.failed !== undefined || s.lost !== undefined)) post({ type: 'stop' });
      else if (o.ready === undefined) post({ type: 'go' });
      else {
        holding = true;
        o.ready().then(
          () => post({ type: 'go' }),
          (err: unknown) => {
            cancelled = err;
            post({ type: 'cancel' });
          },
        ).finally(() => (holding = false));
      }
    }
  };
  const outer = o.shard ?? { index: 0, count: 1 };
  for (let index = 0; index < o.count; index++) {
    // A worker gets its place in the split and nothing else: the shard's identity (run id,
    // fingerprint) is written on the merged report alone. A worker's report that carried it
    // would be merged as one shard of count·N, the other workers' shards named missing.
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
            if (merged !== undefined) for (const out of outputs) out.tick?.(merged);
          }
        } else if (m.type === 'aborted') {
          // One worker's abort-on-fail threshold failed: the run is aborted, so every worker stops.
          if (abortedBy === undefined) {
            abortedBy = m.by;
            post({ type: 'abort', by: m.by }, slot);
          }
        } else if (m.type === 'stopped') {
          // Stopped from inside (the scenario's process.exit): the run stops, every worker with it.
          if (!holding) post({ type: 'stop' }, slot);
        } else if (m.type === 'warn') {
          o.onWarn?.(m.text);
        } else if (m.type === 'scheduled') {
          slot.scheduled = m.report;
        } else if (m.type === 'done') {
          slot.done = m;
          o.onSnapshot?.(index, m.snapshot);
        }
        else slot.failed = m.error;
        reportSchedules();
        releaseWhenReady();
      });
      worker.on('error', (err) => {
        slot.lost ??= `${err.name}: ${err.message}`;
      });
      worker.on('exit', (code) => {
        if (slot.done === undefined && slot.failed === undefined) slot.lost ??= `exited with code ${code}`;
        releaseWhenReady();
        reportSchedules();
        resolve();
      });
    });
    slot = { worker, ended, ready: false, progress: undefined, done: undefined, scheduled: undefined, failed: undefined, lost: undefined };
    slots.push(slot);
  }
  const onStop = (): void => {
    if (!holding) post({ type: 'stop' });
  };
  o.stopSignal.addEventListener('abort', onStop, { once: true });
  try {
    await Promise.all(slots.map((s) => s.ended));
  } finally {
    o.stopSignal.removeEventListener('abort', onStop);
  }

  if (cancelled !== undefined) throw cancelled;
  const failed = slots.find((s) => s.failed !== undefined)?.failed;
  if (failed !== undefined) throw rethrown(failed);
  const done = slots.flatMap((s, i) => (s.done === undefined ? [] : [{ i, report: s.done.report, dataExhausted: s.done.dataExhausted }]));
  const lost = lostSoFar();
  if (done.length === 0) throw new FlowgaugeError('FG_INTERNAL', `every worker ended without a report: ${lost.map((l) => `worker ${l.i + 1}: ${l.reason}`).join('; ')}`);

  const report = wholeReport(done.map((d) => ({ worker: d.i, report: d.report })), o.count, lost, abortedBy, o.shard);
  const dataExhausted = [...new Set(done.flatMap((d) => d.dataExhausted))];
  // As in one thread: the schedule's report first, then the final one to every output.
  await scheduleReported;
  if (scheduleFailed !== undefined) throw scheduleFailed.error;
  for (const out of outputs) await out.end?.(report);
  return { report, passed: report.passed, dataExhausted };
}

/**
 * The workers' reports as one run's: merged exactly, each warning once, the workers counted
 * (`load.workers`), the abort named by the worker that failed first, a lost worker said
 * (WORKER_LOST; the run is then interrupted).
 */
function wholeReport(
  parts: readonly { readonly worker: number; readonly report: Report }[],
  count: number,
  lost: readonly { readonly i: number; readonly reason: string; readonly started: number }[],
  abortedBy: string | undefined,
  shard: RunShard | undefined,
): Report {
  const merged = mergeReports(parts.map((p) => p.report), { names: parts.map((p) => `worker ${p.worker + 1}`) });
  const lostWarnings: RunWarning[] = lost.map((l) => ({
    code: 'WORKER_LOST',
    message: `worker ${l.i + 1} of ${count} ended without its report (${l.reason}); its share of the schedule (${l.started} started by its last progress) is not in these figures: run again, or with fewer --workers`,
  }));
  const warnings = [...onceEach(parts, count, merged.warnings), ...lostWarnings];
  const interrupted = merged.interrupted || lost.length > 0;
  const passed = merged.passed && lost.length === 0;
  const aborted = abortedBy ?? merged.abortedBy;
  const { warnings: _w, abortedBy: _a, ...rest } = merged;
  const identity = shardOfReport(shard);
  return {
    ...rest,
    ...(identity !== undefined ? { shard: identity } : {}),
    load: { ...merged.load, workers: count },
    interrupted,
    passed,
    ...(aborted !== undefined ? { abortedBy: aborted } : {}),
    verdict: reportVerdict({ interrupted, abortedBy: aborted, passed }),
    ...(warnings.length > 0 ? { warnings } : {}),
  };
}

/** A warning's scenario (`scenario "free": …`), so each scenario's stays its own line. */
const scenarioOf = (w: RunWarning): string => /^scenario "[^"]*": /.exec(w.message)?.[0] ?? '';

/**
 * Each warning once: the workers' lines of one code (and scenario) are one line. Their figures
 * are each worker's share, so when they differ the line keeps the first worker's and says which
 * others said the same. Warnings of the merge itself (in no worker's report) are kept as they are.
 */
function onceEach(parts: readonly { readonly worker: number; readonly report: Report }[], count: number, merged: readonly RunWarning[] | undefined): RunWarning[] {
  const groups = new Map<string, { code: string; said: { worker: number; message: string; warning: RunWarning }[] }>();
  const fromWorkers = new Set<string>();
  for (const p of parts) {
    for (const w of p.report.warnings ?? []) {
      fromWorkers.add(`${w.code}\u0000${w.message}`);
      const key = `${w.code}\u0000${scenarioOf(w)}`;
      let g = groups.get(key);
      if (g === undefined) groups.set(key, (g = { code: w.code, said: [] }));
      g.said.push({ worker: p.worker, message: w.message, warning: w });
    }
  }
  const out: RunWarning[] = [];
  for (const g of groups.values()) {
    const first = g.said[0] as { worker: number; message: string; warning: RunWarning };
    const others = [...new Set(g.said.map((x) => x.worker))].filter((w) => w !== first.worker).map((w) => w + 1);
    const same = g.said.every((x) => x.message === first.message);
    // The first worker's figures, as its words (`eventLoopDelayMs`).
    out.push({
      ...first.warning,
      code: g.code,
      message: same || others.length === 0 ? first.message : `${first.message} (figures of worker ${first.worker + 1} of ${count}; worker${others.length > 1 ? 's' : ''} ${others.join(', ')} said the same of ${others.length > 1 ? 'their shares' : 'its share'})`,
    });
  }
  for (const w of merged ?? []) if (!fromWorkers.has(`${w.code}\u0000${w.message}`)) out.push(w);
  return out;
}
