/**
 * A deadline on loading a scenario module that holds against synchronous code too. The
 * module's own deadline (`loadScenarioFile`) is a timer, and a timer never fires while the
 * thread is busy: `while (true) {}` at the module's top level hung the CLI, silent. So a module
 * is first loaded in a throwaway worker thread, which can be terminated whatever its code does;
 * only once that load came back is it loaded where it runs. Its top-level code runs twice (once
 * there, once here), which a scenario's top level, a definition, can afford.
 *
 * The package's own ready scenarios are known to load and skip it, so `run smoke` starts as fast
 * as before.
 */
import { Worker } from 'node:worker_threads';
import { resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { packageFile } from '../core/package-root.js';

/** What the throwaway thread is given. */
export interface PreflightInput {
  /** The module's absolute path. */
  readonly abs: string;
}

/**
 * What it says: that it begins importing the module (its own code is loaded: the deadline starts
 * now); once the import and its export came back, loaded or failed (a throw, a rejection); or,
 * asked at the deadline, that it is still waiting (its thread is free: an await).
 */
export type PreflightAnswer = { readonly started: true } | { readonly ok: boolean } | { readonly waiting: true };

/** How the pre-flight ended. */
export type PreflightOutcome =
  /** The import came back, loaded or failed: the load here names a failure with its file and line. */
  | { readonly kind: 'came-back'; readonly ok: boolean }
  /**
   * Its code did not come back within the deadline: the thread was terminated. `busy`: its code
   * held the thread (a loop); else it awaited something that never settled.
   */
  | { readonly kind: 'timed-out'; readonly busy: boolean }
  /** Its code ended the thread (`process.exit`) while loading. */
  | { readonly kind: 'exited'; readonly code: number }
  /** The thread itself failed (not the module): the load here goes on without a pre-flight. */
  | { readonly kind: 'unavailable' };

/** The thread's entry, the same file in a checkout and in the package. */
const ENTRY = packageFile('bin/flowgauge-preflight.mjs');

/** How long a thread at its deadline has to say it is only waiting. */
const ASK_MS = 2000;

/**
 * How long the thread may take to load its own code before it begins the module's: a guard, not
 * a deadline of the module's. Past it the load here goes on without a pre-flight (its own timer
 * still bounds an await; only a loop would then go unbounded, on a machine too starved to start
 * a thread in a minute).
 */
const START_GUARD_MS = 60_000;

/** The package's own ready scenarios. */
const OWN_SCENARIOS = resolve(fileURLToPath(packageFile('scenarios/'))) + sep;

/**
 * Imports the module at `abs` in a throwaway worker thread, terminated if its code (top level
 * and exported promise together) has not come back `timeoutMs` after the thread began importing
 * it. Never rejects. `entry` is the thread's script (a test's stands in front of it).
 */
export function preflightModule(abs: string, timeoutMs: number, entry: URL = ENTRY): Promise<PreflightOutcome> {
  return new Promise((settle) => {
    let done = false;
    let timer: NodeJS.Timeout | undefined;
    const end = (o: PreflightOutcome): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      settle(o);
      // Whatever the module left running there (a timer, a loop) goes with the thread.
      void worker.terminate();
    };
    const worker = new Worker(entry, {
      workerData: { abs } satisfies PreflightInput,
      // The module's own output is the run's to show, once, when it loads there.
      stdout: true,
      stderr: true,
    });
    // Unreferenced: the thread never keeps the process alive by itself.
    worker.unref();
    worker.stdout.resume();
    worker.stderr.resume();
    // The deadline is the module's: it starts when the thread, its own code loaded, begins the
    // import. From the thread's start, a loaded machine charged the module with seconds of the
    // thread's own loader and called a thread still loading "waits on something that never settles".
    timer = setTimeout(() => end({ kind: 'unavailable' }), START_GUARD_MS);
    worker.on('message', (a: PreflightAnswer) => {
      if ('started' in a) {
        clearTimeout(timer);
        timer = setTimeout(() => {
          worker.postMessage('waiting?');
          timer = setTimeout(() => end({ kind: 'timed-out', busy: true }), ASK_MS);
        }, timeoutMs);
        return;
      }
      end('waiting' in a ? { kind: 'timed-out', busy: false } : { kind: 'came-back', ok: a.ok });
    });
    worker.on('error', () => end({ kind: 'unavailable' }));
    // An end before any answer is the module's own process.exit.
    worker.on('exit', (code) => end({ kind: 'exited', code }));
  });
}

/**
 * The pre-flight of `loadScenarioFile`: resolves when the module may be loaded in this thread
 * (its load there names what a failed import threw); throws `fail(…)` (exit 2) for code that did
 * not come back within the deadline, or a module that ended its thread. The package's own
 * scenarios are not pre-flown.
 */
export async function preflight(abs: string, timeoutMs: number, fail: (message: string) => Error): Promise<void> {
  if (abs.startsWith(OWN_SCENARIOS)) return;
  const o = await preflightModule(abs, timeoutMs);
  if (o.kind === 'timed-out') {
    throw fail(
      o.busy
        ? `did not finish loading within ${timeoutMs / 1000} s: its code never came back (a loop that never ends, at its top level or in a module it imports?)`
        : `did not finish loading within ${timeoutMs / 1000} s: it waits on something that never settles (a top-level await, or an exported promise?); export the scenario itself, or a promise that resolves to it`,
    );
  }
  if (o.kind === 'exited') throw fail(`called process.exit while loading (code ${o.code}): a scenario module may not end the process; export the scenario, or throw to refuse to load`);
}
