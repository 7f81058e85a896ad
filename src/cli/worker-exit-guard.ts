/**
 * The CLI's setup of a worker thread of a run (`RunOptions.workerSetup`, `WORKER_EXIT_GUARD`):
 * `process.exit` in the scenario's code would end the thread, its share of the run lost; guarded,
 * it stops the worker's run (drained, reported) and its report says `SCENARIO_EXIT`, merged into
 * the run's. The thread ends with the run, so the guard is never put back.
 */
import type { WorkerSetup } from '../run/index.js';
import { guardProcessExit } from './exit-guard.js';

/** Guards `process.exit` in this worker thread for the rest of its life. */
export function setupWorker(): WorkerSetup {
  const guard = guardProcessExit();
  return { stopSignal: guard.signal, phases: [guard.phase] };
}
