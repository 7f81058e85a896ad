/**
 * Process exit codes (docs/measuring.md, "Exit codes"): other tools branch on these. A thrown
 * error's exit code is its `code`'s, from one table (`EXIT_OF_CODE`).
 */
import { FlowgaugeError, type FlowgaugeErrorCode } from '../core/errors.js';

export const EXIT = {
  /** Every threshold passed. */
  OK: 0,
  /** A threshold (or a compare regression, or a probe) failed. */
  FAILED: 1,
  /**
   * Bad input: scenario, flags, files; and an output that could not be written (a full disk, a
   * read-only path: the path and the system's reason are said). Either way the user's setup is
   * what to fix, not the target nor flowgauge.
   */
  BAD_INPUT: 2,
  /** The target could not be reached at all. */
  UNREACHABLE: 3,
  /**
   * The target answered, but not as the interface does: another protocol than HTTP/1.1 (an SSH
   * banner, HTTP/2, an HTML page with no status line) or `GET /flows` in another shape.
   * EX_PROTOCOL of sysexits.h: the address is wrong, not the network.
   */
  PROTOCOL: 76,
  /**
   * flowgauge itself failed (a bug: "internal error (please report it)"), EX_SOFTWARE of
   * sysexits.h. Never 1: a release gate must tell a broken tool from a failed threshold.
   */
  INTERNAL: 70,
  /**
   * Stopped early: the report was written (marked `interrupted`), but a partial run proves
   * nothing, so a release gate must not read it as a pass. 128 + SIGINT, as shells do; a stop by
   * SIGHUP or SIGTERM exits with its own 128 + N (`HANGUP`, `TERMINATED`), and a stop that no
   * signal asked for (a worker lost, the scenario's own `process.exit`) with this one.
   */
  INTERRUPTED: 130,
  /** Stopped by SIGHUP (the terminal closed, an SSH session dropped): 128 + 1, its output written as for `INTERRUPTED`. */
  HANGUP: 129,
  /** Stopped by SIGTERM (a kill, a service manager, Kubernetes): 128 + 15, its output written as for `INTERRUPTED`. */
  TERMINATED: 143,
} as const;

/** One of the documented exit codes. */
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/**
 * The exit code of each code a `FlowgaugeError` carries: the one table the CLI maps thrown errors
 * by. Typed over every code, so a code added to `core/errors.ts` does not compile until it has
 * its exit code here.
 */
export const EXIT_OF_CODE: Readonly<Record<FlowgaugeErrorCode, ExitCode>> = {
  FG_USAGE: EXIT.BAD_INPUT,
  FG_CONFIG_INVALID: EXIT.BAD_INPUT,
  FG_INVALID_ARGUMENT: EXIT.BAD_INPUT,
  FG_FILE_NOT_FOUND: EXIT.BAD_INPUT,
  FG_REPORT_INVALID: EXIT.BAD_INPUT,
  FG_HISTORY_UNREADABLE: EXIT.BAD_INPUT,
  FG_SCRIPT_UNREADABLE: EXIT.BAD_INPUT,
  // An address of this machine that is taken or not its own is bad input, as a bad flag is.
  FG_LISTEN_FAILED: EXIT.BAD_INPUT,
  FG_TARGET_UNREACHABLE: EXIT.UNREACHABLE,
  FG_TARGET_PROTOCOL: EXIT.PROTOCOL,
  // Written as 128 + the signal that stopped the command (`CommandContext.setExit`; 130 when none did).
  FG_INTERRUPTED: EXIT.INTERRUPTED,
  // The scenario's own process.exit stops the run as a stop no signal asked for.
  FG_SCENARIO_EXIT: EXIT.INTERRUPTED,
  // A full disk or a read-only path: the user's setup is what to fix, as with bad input.
  FG_OUTPUT_FAILED: EXIT.BAD_INPUT,
  FG_INTERNAL: EXIT.INTERNAL,
  // A journey's own failures end its iteration inside the run; one that escapes is a bug.
  FG_ITERATION_FAILED: EXIT.INTERNAL,
  FG_ITERATION_INTERRUPTED: EXIT.INTERNAL,
};

/**
 * The exit code of a thrown flowgauge error, by its code; undefined for an error of another
 * family (the client's `ApiError` and `TransportError` are data and never thrown: one that is,
 * is a bug).
 */
export function exitCodeOf(err: FlowgaugeError<string>): ExitCode | undefined {
  return Object.hasOwn(EXIT_OF_CODE, err.code) ? EXIT_OF_CODE[err.code as FlowgaugeErrorCode] : undefined;
}
