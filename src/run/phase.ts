/**
 * A phase of a run: it acts beside or after the schedule — follows runs to their end, matches
 * notifications, audits the service's account, watches the generator — and owns the report
 * section it learns (`section`), projected from its own state once it finished. Unlike an
 * output, a phase may send requests (with `clientOf(scenario)`, the scenario's own token),
 * announce asynchronous ends, ask for parsed values, and wait after the schedule, within the
 * finishing deadline. Over worker threads each worker runs its own phases (`run-phases.ts`).
 */
import type { Client } from '../api/index.js';
import type { SetupAnswer } from '../collect/index.js';
import type { AsyncRunsReport, AuditReport, NotificationsReport, Report, RunWarning } from '../report/index.js';
import type { AsyncEnd, SampleHooks, ValuesWanted } from './events.js';
import type { OutputContext } from './output.js';
import type { RunProgress } from './progress.js';

/** What every phase is given at the start: an output's context and the means to act. */
export interface PhaseContext extends OutputContext {
  /**
   * The client of the run's first scenario, kept for phases written before tenants: a run of
   * several scenarios may hold one client (one token) per scenario, so a phase that reads back
   * what a scenario did (following, the audit) uses `clientOf(sample.scenario)`.
   */
  readonly client: Client;
  /** The client (and so the token) a scenario of this run sends with; `client` for a name the run does not have. */
  clientOf(scenario: string): Client;
  /**
   * The tenant a scenario runs as: the name of the first scenario of the run that uses the same
   * token. Scenarios are taken to share a token when they name the same `tokenEnv` or are given
   * the same client object; otherwise each is its own tenant. The audit reads one account once.
   */
  tenantOf(scenario: string): string;
  /** Sessions that mix entries name (the audit reads their history). */
  readonly sessionIds: readonly string[];
  /** The same sessions by the scenario whose mix names them (read with that scenario's client). */
  readonly sessionIdsOf: Readonly<Record<string, readonly string[]>>;
  /** True when this process runs one shard of several (it sees only its share). */
  readonly sharded: boolean;
  /** Announces an asynchronous end to every phase and output (following, notification matching). */
  emitAsyncEnd(e: AsyncEnd): void;
  /**
   * An answer to a request a phase sent with a scenario's token (following's polls): the
   * service counted it in that token's rate-limit window, so the analyser places it there too.
   * Nothing else of it is reported here.
   */
  spent(scenario: string | undefined, answer: SetupAnswer): void;
}

/** What every phase is given after the schedule has drained. */
export interface FinishContext {
  readonly interrupted: boolean;
  /** Aborted when the user stops the run again, or the finishing deadline passes. */
  readonly signal: AbortSignal;
  /** Monotonic ns by which finishing must be done. */
  readonly deadlineNs: number;
}

/** The report sections phases own (all optional in report@1), by key. */
export interface PhaseSections {
  readonly notifications: NotificationsReport;
  readonly asyncRuns: AsyncRunsReport;
  readonly audit: AuditReport;
}

/** A phase's section: its key in the report, and its projection from the phase's state (undefined leaves it out). */
export type PhaseSection = { [K in keyof PhaseSections]: { readonly key: K; project(): PhaseSections[K] | undefined } }[keyof PhaseSections];

/** A phase. Every method is optional; none may throw (a failure is the phase's own to record). Called in list order. */
export interface RunPhase extends SampleHooks {
  readonly name: string;
  /** Which samples carry their parsed `value` for it (`ValuesWanted`); none by default. */
  readonly values?: ValuesWanted;
  /** The report section it owns. */
  readonly section?: PhaseSection;
  start?(ctx: PhaseContext): void | Promise<void>;
  /** About once a second. */
  tick?(p: RunProgress): void;
  /** The schedule drained and its report is written; what follows may wait on the target. */
  scheduleEnded?(report: Report): void;
  /** After the schedule drained: waits for what it follows, within the context's deadline. */
  finish?(ctx: FinishContext): Promise<void> | void;
  /** What the reader must know of the run that the phase saw (the generator's own limits). */
  warnings?(): readonly RunWarning[];
}
