/**
 * The one owner of the stop signals for every long-running command: SIGINT (Ctrl-C), SIGTERM
 * (a kill, a service manager, Kubernetes) and SIGHUP (the terminal closed: an SSH session that
 * dropped). The first asks the command to stop (drain, flush, write what it has, marked
 * interrupted), a second quits at once. Either way the exit code is 128 + the signal's number, as
 * a shell reports a process the signal ended: 130, 143, 129. Command handlers get an AbortSignal
 * and never call `process.exit` themselves.
 */
import { exitNow } from './exit-guard.js';
import { EXIT, type ExitCode } from './exit-codes.js';
import type { TextSink } from './io.js';

/** The signals that stop a command. */
export const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/** One of `STOP_SIGNALS`. */
export type StopSignal = (typeof STOP_SIGNALS)[number];

/** A command's stop: `signal` aborts at the first stop signal. */
export interface StopSignals {
  readonly signal: AbortSignal;
  /** The signal that stopped the command, once one did. */
  readonly stoppedBy: StopSignal | undefined;
  /** Stops the command as a signal would, for a reason of its own (the scenario's `process.exit`). */
  abort(): void;
  /** Stops listening (call in `finally`). */
  dispose(): void;
}

/** 128 + the signal's number. */
export function signalExit(sig: StopSignal): ExitCode {
  return sig === 'SIGHUP' ? EXIT.HANGUP : sig === 'SIGTERM' ? EXIT.TERMINATED : EXIT.INTERRUPTED;
}

/** The signal that stopped the latest command of this process (an interrupted command's code is its). */
let lastStop: StopSignal | undefined;

/**
 * The exit code of an interrupted command: 128 + the signal that stopped it, or 130 when none
 * did (a worker lost, the scenario's own `process.exit`).
 */
export function interruptedExit(): ExitCode {
  return lastStop === undefined ? EXIT.INTERRUPTED : signalExit(lastStop);
}

/**
 * Listens for the stop signals. `what` says what the first signal does (printed to `err`),
 * e.g. "stopping; draining in-flight requests".
 */
export function listenForStop(err: TextSink, what: string): StopSignals {
  const stop = new AbortController();
  let stoppedBy: StopSignal | undefined;
  lastStop = undefined;
  const onSignal = (sig: NodeJS.Signals): void => {
    const s = sig as StopSignal;
    if (stoppedBy === undefined) {
      stoppedBy = s;
      lastStop = s;
      err.write(`\nflowgauge: ${sig}: ${what} (again to quit at once)\n`);
      stop.abort();
    } else {
      // The user asked twice: nothing may keep the process, not even a hanging target.
      exitNow(signalExit(s));
    }
  };
  for (const s of STOP_SIGNALS) process.on(s, onSignal);
  return {
    signal: stop.signal,
    get stoppedBy() {
      return stoppedBy;
    },
    abort() {
      stop.abort();
    },
    dispose() {
      for (const s of STOP_SIGNALS) process.off(s, onSignal);
    },
  };
}
