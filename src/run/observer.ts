/**
 * The one contract between a run and everything that watches it (in the spirit of k6's
 * `output.Output`): the engine emits plain, frozen samples and lifecycle events to a list of
 * observers. Metrics, spans, progress, run following, notification matching, the audit and the
 * live dashboard are each one observer; the collectors are the run's state, which judges each
 * sample before observers see it.
 */
import type { Client } from '../api/index.js';
import type { CheckExample, SetupAnswer } from '../collect/index.js';
import type { Clock } from '../core/clock.js';
import type { OpName } from '../core/ops.js';
import type { RequestSample, RunStatus, Verdict } from '../core/types.js';
import type { Report } from '../report/index.js';
import type { RunProgress } from './progress.js';

/** One finished request, judged. Plain and frozen: it may be kept, spread or cloned. */
export interface RunSample extends Readonly<RequestSample> {
  /** The scenario that sent it. */
  readonly scenario: string;
  readonly verdict: Verdict;
  /** The journey step it belongs to, when the journey named one. */
  readonly step: string | undefined;
  /** Session it ran in (run, stream, getHistory), when known. */
  readonly sessionId: string | undefined;
  /** Text input of a run or stream, when it was text. */
  readonly input: string | undefined;
  /**
   * The parsed answer (a `Run`, a stream's summary, a trigger acknowledgement, …), only for
   * observers that asked for values (`RunObserver.values`); otherwise undefined.
   */
  readonly value: unknown;
}

/** One finished journey iteration. */
export interface IterationSample {
  readonly scenario: string;
  readonly iteration: number;
  readonly intendedNs: number;
  readonly endNs: number;
  readonly result: 'completed' | 'failed' | 'interrupted';
  /** Why it failed (the thrown message or the failed step's). */
  readonly error: string | undefined;
}

/** One evaluated check of a journey. */
export interface CheckSample {
  readonly scenario: string;
  readonly name: string;
  readonly passed: boolean;
  /** A failed check's expected and actual text, when the check said (bounded, without the token). */
  readonly example?: CheckExample;
}

/** A run that answered `running` (or a trigger) whose end became known after it. */
export interface AsyncEnd {
  /** Who learnt the end: polling `GET /runs/{id}`, or a notification. */
  readonly source: 'poll' | 'notification';
  /** Empty for a trigger whose run id was never known. */
  readonly runId: string;
  readonly flowId: string | undefined;
  readonly kind: 'run' | 'trigger';
  readonly status: Extract<RunStatus, 'completed' | 'failed'> | 'unresolved';
  readonly atNs: number;
  readonly totalTokens: number | undefined;
  readonly sessionId: string | undefined;
  readonly input: string | undefined;
  readonly startNs: number;
  /**
   * The scenario whose request started it, when the emitter knows it (following does; a
   * trigger's end told only by a notification does not).
   */
  readonly scenario?: string | undefined;
}

/** The start of one request, for observers that must act before it is sent (tracing). */
export interface RequestStart {
  readonly scenario: string;
  readonly op: OpName;
  readonly flowId: string | undefined;
  /** The run a journey's `getRun` asks for (a journey polling a run itself; following hands it over). */
  readonly runId?: string | undefined;
  /** The session a `getHistory` reads, when the sender knows it. */
  readonly sessionId?: string | undefined;
}

/** What an observer may attach to one request: headers to send, and its end. */
export interface RequestHook {
  readonly headers: Readonly<Record<string, string>> | undefined;
  end(sample: RunSample): void;
}

/** What every observer is given at the start. */
export interface ObserverContext {
  readonly clock: Clock;
  /**
   * The client of the run's first scenario, kept for observers written before tenants: a run
   * of several scenarios may hold one client (one token) per scenario, so an observer that
   * reads back what a scenario did (following, the audit) uses `clientOf(sample.scenario)`.
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
  readonly runStartNs: number;
  readonly startedAtMs: number;
  /** Names of the scenarios in this run. */
  readonly scenarios: readonly string[];
  /** Sessions that mix entries name (the audit reads their history). */
  readonly sessionIds: readonly string[];
  /** The same sessions by the scenario whose mix names them (read with that scenario's client). */
  readonly sessionIdsOf: Readonly<Record<string, readonly string[]>>;
  /** True when this process runs one shard of several (it sees only its share). */
  readonly sharded: boolean;
  /** Announces an asynchronous end to every observer (following, notification matching). */
  emitAsyncEnd(e: AsyncEnd): void;
  /**
   * An answer to a request an observer sent with a scenario's token (following's polls): the
   * service counted it in that token's rate-limit window, so the analyser places it there too.
   * Nothing else of it is reported here.
   */
  spent(scenario: string | undefined, answer: SetupAnswer): void;
}

/** What every observer is given after the schedule has drained. */
export interface FinishContext {
  readonly interrupted: boolean;
  /** Aborted when the user stops the run again, or the finishing deadline passes. */
  readonly signal: AbortSignal;
  /** Monotonic ns by which finishing must be done. */
  readonly deadlineNs: number;
}

/** Report sections observers may add (all optional in report@1). */
export type ObserverSections = Pick<Partial<Report>, 'notifications' | 'asyncRuns' | 'audit' | 'warnings'>;

/**
 * An observer of a run. Every method is optional; none may throw (a failure is the observer's
 * own to record). Methods are called in list order.
 */
export interface RunObserver {
  readonly name: string;
  /**
   * Which samples carry their parsed `value`: `all`, the answers of the listed operations,
   * `async` (runs that answered `running`, triggers, and `getRun` answers of a finished run), or
   * none (default). Ask for no more than is read: a body identical to the last one is not parsed
   * unless its value is read, and parsing a 4 KB page costs about as much as the rest of the
   * request. An `async` observer's `sample` hears only the samples that carry a value, so the
   * rest of the requests cost it nothing.
   */
  readonly values?: 'all' | 'async' | readonly OpName[];
  /** True when its `tick` shows the thresholds judged on the live figures (`RunProgress.thresholds`, judged only then). */
  readonly liveThresholds?: boolean;
  start?(ctx: ObserverContext): void | Promise<void>;
  request?(r: RequestStart): RequestHook | undefined;
  sample?(s: RunSample): void;
  /**
   * A request the end of the grace period cut within its own deadline: never judged, in no count
   * of requests; what was measured of a stream (its first token, …) still counts.
   */
  cut?(s: Readonly<RequestSample> & { readonly scenario: string }): void;
  asyncEnd?(e: AsyncEnd): void;
  iteration?(i: IterationSample): void;
  check?(c: CheckSample): void;
  /** About once a second. */
  tick?(p: RunProgress): void;
  /**
   * The report of the schedule, before anything after it can wait on the target (following,
   * notifications, the audit): a report writer saves it, so nothing is lost if those hang.
   */
  scheduleEnded?(report: Report): Promise<void> | void;
  /** After the schedule drained: waits for what it follows, within the context's deadline. */
  finish?(ctx: FinishContext): Promise<void> | void;
  /** The sections it adds to the report (called after every observer finished). */
  sections?(): ObserverSections;
  /** The final report, once written (the dashboard links it; exporters push last values). */
  end?(report: Report): Promise<void> | void;
}
