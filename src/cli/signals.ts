/**
 * The one owner of SIGINT/SIGTERM for every long-running command: the first signal asks the
 * command to stop (drain, flush, write the report), a second quits at once with 130. Command
 * handlers get an AbortSignal and never call `process.exit` themselves.
 */
import type { TextSink } from './io.js';

/** A command's stop: `signal` aborts at the first SIGINT/SIGTERM. */
export interface StopSignals {
  readonly signal: AbortSignal;
  /** Stops listening (call in `finally`). */
  dispose(): void;
}

/**
 * Listens for SIGINT/SIGTERM. `what` says what the first signal does (printed to `err`),
 * e.g. "stopping; draining in-flight requests".
 */
export function listenForStop(err: TextSink, what: string): StopSignals {
  const stop = new AbortController();
  let count = 0;
  const onSignal = (sig: NodeJS.Signals): void => {
    count++;
    if (count === 1) {
      err.write(`\nflowgauge: ${sig}: ${what} (again to quit at once)\n`);
      stop.abort();
    } else {
      // The user asked twice: nothing may keep the process, not even a hanging target.
      process.exit(130);
    }
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return {
    signal: stop.signal,
    dispose() {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}
