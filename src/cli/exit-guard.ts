/**
 * Scenario code runs inside flowgauge's own process (or worker thread): a `process.exit()` in it
 * would end the run behind flowgauge's back, with no report and with whatever code it chose, so
 * a scenario's `process.exit(0)` read as a pass. While a scenario is loaded and run, the guard
 * stands in for `process.exit`: the first call is recorded, the run is stopped as a Ctrl-C stops
 * it (drained, reported, marked interrupted: exit 130), and the call throws so that none of the
 * scenario's code after it runs. The report says what happened (warning `SCENARIO_EXIT`).
 *
 * flowgauge's own exits go through `exitNow`, which is never guarded.
 *
 * Over worker threads each worker runs scenario code too, and the guard must stand there as well:
 * the run session imports `WORKER_EXIT_GUARD` in each worker (`RunOptions.workerSetup`), so the
 * guard, like everything that touches the process, stays in cli/ and run/ never imports it.
 */
import { FlowgaugeError } from '../core/errors.js';
import type { RunPhase } from '../run/index.js';
import { packageModule } from '../core/package-root.js';

/** The process's own `process.exit`, taken before any guard replaced it. */
const realExit: (code?: number) => never = process.exit.bind(process) as (code?: number) => never;

/** Ends the process with `code` at once: flowgauge's own exits (a second Ctrl-C, the last resort after a command). */
export function exitNow(code: number): never {
  return realExit(code);
}

/**
 * Thrown by the guarded `process.exit` into the scenario's code: it unwinds the journey (which
 * then ends as failed) and is otherwise swallowed.
 */
export class ScenarioExitError extends FlowgaugeError {
  constructor(readonly exitCode: unknown, readonly at: string) {
    super('FG_SCENARIO_EXIT', `the scenario called process.exit(${show(exitCode)})${at === '' ? '' : ` at ${at}`}: flowgauge ends the run itself, with its report`);
    this.name = 'ScenarioExitError';
  }
}

/** What the scenario asked for. */
export interface ScenarioExit {
  /** The code it passed (undefined for none). */
  readonly code: unknown;
  /** `file:line:column` of the call, or '' when the stack does not say. */
  readonly at: string;
  /** What happened, for the console and the report. */
  readonly message: string;
}

/** A guard on `process.exit` for the scenario's lifetime. */
export interface ExitGuard {
  /** Aborted at the scenario's first `process.exit`. */
  readonly signal: AbortSignal;
  /** The first call, once made. */
  readonly called: ScenarioExit | undefined;
  /** Adds the `SCENARIO_EXIT` warning to the run's report. */
  readonly phase: RunPhase;
  /** Puts `process.exit` back (in a process that goes on after the command, as tests do). */
  dispose(): void;
}

function show(code: unknown): string {
  return code === undefined ? '' : typeof code === 'string' ? JSON.stringify(code) : String(code);
}

// The file this code is in: exit-guard.ts in the sources, the chunk it was bundled into in the
// package (scripts/bundle-dist.ts), whose name says nothing of it.
const OWN_PATH = new URL(import.meta.url).pathname;

/** True for a stack line of this module's own code. */
function ownFrame(line: string): boolean {
  return /exit-guard\.[jt]s/.test(line) || line.includes(`${OWN_PATH}:`);
}

/** The first stack frame outside this file and Node's own: the scenario's line. */
function callerOf(stack: string | undefined): string {
  for (const line of (stack ?? '').split('\n').slice(1)) {
    const m = /\(?((?:file:\/\/)?\/[^()\s]+?):(\d+):(\d+)\)?\s*$/.exec(line.trim());
    if (m === null || ownFrame(m[0])) continue;
    const file = (m[1] as string).replace(/^file:\/\//, '').replace(/\?.*$/, '');
    return `${decodeURIComponent(file)}:${m[2]}:${m[3]}`;
  }
  return '';
}

/**
 * True when a worker thread is dying: after an uncaught error, Node's worker entry
 * (`node:internal/main/worker_thread`) calls `process.exit` itself. That is the thread lost
 * (WORKER_LOST), not the scenario asking to end the run, and must not stop the other workers.
 * Only that caller: `setTimeout(process.exit)` in a journey is also called from Node's own code
 * (its timers), and is the scenario's.
 */
function workerDying(stack: string | undefined): boolean {
  for (const line of (stack ?? '').split('\n').slice(1)) {
    if (ownFrame(line)) continue;
    return /node:internal\/main\/worker_thread/.test(line);
  }
  return false;
}

/**
 * The guards standing, oldest first, and the `process.exit` from before the first. Commands
 * running at once in one process (a program calling `main` twice) end in any order: the latest
 * guard still standing is the one in place, and the last to go puts back what was there before.
 */
const standing: (typeof process.exit)[] = [];
let unguarded: typeof process.exit = process.exit;

/**
 * Guards `process.exit` until `dispose()`. A call throws `ScenarioExitError` into the code that
 * made it; one made where nothing catches it (a timer's callback, a promise nobody awaits) is
 * swallowed here, the run being stopped already.
 */
export function guardProcessExit(): ExitGuard {
  const stop = new AbortController();
  let called: ScenarioExit | undefined;
  if (standing.length === 0) unguarded = process.exit;
  const guarded = (code?: unknown): never => {
    const stack = new Error().stack;
    if (workerDying(stack)) return unguarded.call(process, code as number | undefined);
    const at = callerOf(stack);
    called ??= {
      code,
      at,
      message: `the scenario called process.exit(${show(code)})${at === '' ? '' : ` at ${at}`}: the run was stopped there and is reported as interrupted (flowgauge ends the run itself; end a journey by returning or throwing)`,
    };
    if (!stop.signal.aborted) stop.abort();
    throw new ScenarioExitError(code, at);
  };
  process.exit = guarded as typeof process.exit;
  standing.push(process.exit);
  // Thrown in a callback nobody awaits, it would crash the process: that is what the guard is against.
  const onUncaught = (err: unknown): void => {
    if (err instanceof ScenarioExitError) return;
    // Another listener (a test runner's) deals with the rest. Alone here, it is thrown again
    // without this listener, so it ends the process (or the worker thread) as it would have.
    if (process.listenerCount('uncaughtException') > 1) return;
    process.off('uncaughtException', onUncaught);
    process.nextTick(() => {
      throw err;
    });
  };
  process.on('uncaughtException', onUncaught);
  return {
    signal: stop.signal,
    get called() {
      return called;
    },
    phase: {
      name: 'exit-guard',
      warnings: () => (called === undefined ? [] : [{ code: 'SCENARIO_EXIT', message: called.message }]),
    },
    dispose() {
      const at = standing.indexOf(guarded as typeof process.exit);
      if (at !== -1) standing.splice(at, 1);
      if (process.exit === guarded) process.exit = standing.at(-1) ?? unguarded;
      process.off('uncaughtException', onUncaught);
    },
  };
}

/**
 * After the command: any later `process.exit` (a scenario's timer left running) exits with the
 * command's own code, whatever it passes.
 */
export function holdExitCode(code: number): void {
  process.exit = ((): never => realExit(code)) as typeof process.exit;
}

/**
 * The module a worker thread of a run imports first (`RunOptions.workerSetup`): its
 * `setupWorker()` guards `process.exit` in that thread. The TypeScript source in a checkout, the
 * compiled file in a package, as this module is.
 */
export const WORKER_EXIT_GUARD = packageModule('cli/worker-exit-guard');

/** Runs `body` with `process.exit` guarded, and puts it back after. */
export async function withExitGuard<T>(body: (guard: ExitGuard) => Promise<T>): Promise<T> {
  const guard = guardProcessExit();
  try {
    return await body(guard);
  } finally {
    guard.dispose();
  }
}
