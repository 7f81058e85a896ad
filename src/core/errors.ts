/**
 * Errors thrown by flowgauge. Only programmer and configuration mistakes throw; failures met
 * while measuring a service are data (see `ErrorCode` in `codes.ts`).
 *
 * One root, as undici's `UndiciError`: every error flowgauge makes extends `FlowgaugeError` and
 * carries a stable `code` that callers may branch on (the CLI maps codes to exit codes in one
 * table, `cli/exit-codes.ts`); messages may change. The client's failures (`ApiError`,
 * `TransportError`) are of the same root with the interface's and the wire's codes.
 */

/** Stable codes of thrown errors. */
export type FlowgaugeErrorCode =
  | 'FG_CONFIG_INVALID'
  | 'FG_INVALID_ARGUMENT'
  | 'FG_FILE_NOT_FOUND'
  | 'FG_TARGET_UNREACHABLE'
  | 'FG_TARGET_PROTOCOL'
  | 'FG_REPORT_INVALID'
  | 'FG_HISTORY_UNREADABLE'
  | 'FG_INTERRUPTED'
  | 'FG_INTERNAL'
  /** An output could not be written (a full disk, a read-only path): the path and the system's reason. */
  | 'FG_OUTPUT_FAILED'
  /** A scenario's own `process.exit`, refused by the CLI's guard (`ScenarioExitError`): the run stops as if interrupted. */
  | 'FG_SCENARIO_EXIT'
  /** A user mistake on the command line found after parsing (`UsageError`). */
  | 'FG_USAGE'
  /** A server of flowgauge's own could not listen on its address (`ListenError`). */
  | 'FG_LISTEN_FAILED'
  /** A script read without running it (a k6 script) cannot be read as JavaScript (`ScanError`). */
  | 'FG_SCRIPT_UNREADABLE'
  /** A journey's `vu.fail` (`IterationFailure`): the iteration failed, the run goes on. */
  | 'FG_ITERATION_FAILED'
  /** Think time cut by the run's stop (`IterationInterrupted`): the iteration ends there. */
  | 'FG_ITERATION_INTERRUPTED';

/**
 * Base class: `code` is stable, `message` is for people. `C` is the family of codes a subclass
 * carries (the client's errors carry the interface's and the wire's own codes).
 */
export class FlowgaugeError<C extends string = FlowgaugeErrorCode> extends Error {
  readonly code: C;

  constructor(code: C, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'FlowgaugeError';
    this.code = code;
  }
}

/** One problem found in a configuration, named by its path (`mix[2].weight`). */
export interface ConfigIssue {
  readonly path: string;
  readonly message: string;
  /**
   * What is allowed there, when it is a long list shared by many problems (every threshold
   * metric): printed once, under the first problem that has it, not with each of them.
   */
  readonly allowed?: string;
}

/** Most problems a `ConfigError`'s message lists; the rest are counted ("… and 40 more"), all kept in `issues`. */
export const MAX_SHOWN_ISSUES = 20;

/**
 * A configuration (scenario, flags, options object) is invalid. Carries every problem found,
 * not just the first, so a user fixes them all in one go.
 */
export class ConfigError extends FlowgaugeError {
  readonly issues: readonly ConfigIssue[];

  constructor(issues: readonly ConfigIssue[], subject = 'configuration') {
    super('FG_CONFIG_INVALID', formatIssues(subject, issues));
    this.name = 'ConfigError';
    this.issues = issues;
  }
}

/** A single bad argument to a function or constructor (a programmer error). */
export class InvalidArgumentError extends FlowgaugeError {
  constructor(message: string) {
    super('FG_INVALID_ARGUMENT', message);
    this.name = 'InvalidArgumentError';
  }
}

/**
 * A server flowgauge starts (metrics, dashboard, webhook receiver, the reference service) could
 * not listen: the address is taken or not this machine's. `reason` is the system's code
 * (`EADDRINUSE`, `EADDRNOTAVAIL`, `EACCES`) or message.
 */
export class ListenError extends FlowgaugeError {
  readonly host: string;
  readonly port: number;
  readonly reason: string;

  constructor(message: string, where: { readonly host: string; readonly port: number }, cause: NodeJS.ErrnoException) {
    super('FG_LISTEN_FAILED', message, { cause });
    this.name = 'ListenError';
    this.host = where.host;
    this.port = where.port;
    this.reason = cause.code ?? cause.message;
  }
}

/**
 * The message of a `ConfigError`: every problem up to `MAX_SHOWN_ISSUES`, then how many more;
 * an `allowed` list once, under the first problem that has it. Its size is bounded whatever
 * the number of problems (100,000 bad threshold keys make a message of a few KiB).
 */
function formatIssues(subject: string, issues: readonly ConfigIssue[]): string {
  const lines: string[] = [];
  const said = new Set<string>();
  for (const i of issues.slice(0, MAX_SHOWN_ISSUES)) {
    lines.push(`  - ${i.path === '' ? '(root)' : i.path}: ${i.message}`);
    if (i.allowed !== undefined && !said.has(i.allowed)) {
      said.add(i.allowed);
      lines.push(`    allowed: ${i.allowed}`);
    }
  }
  const n = issues.length;
  if (n > MAX_SHOWN_ISSUES) lines.push(`  … and ${n - MAX_SHOWN_ISSUES} more`);
  return `invalid ${subject} (${n} problem${n === 1 ? '' : 's'}):\n${lines.join('\n')}`;
}
