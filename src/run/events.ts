/**
 * What a run emits, as plain frozen data: judged request samples, journey iterations and checks,
 * the ends of asynchronous work, the start of each request. Outputs (`output.ts`) and phases
 * (`phase.ts`) hear them through the same hooks (`SampleHooks`); the collectors are the run's
 * state, which judges each sample before anything hears it.
 */
import type { CheckExample } from '../collect/index.js';
import type { OpName } from '../core/ops.js';
import type { RequestSample, RunStatus, Verdict } from '../core/types.js';

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
   * The parsed answer (a `Run`, a stream's summary, a trigger acknowledgement, …), only when a
   * phase of the run asked for values (`RunPhase.values`); otherwise undefined.
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

/** The start of one request, for what must act before it is sent (tracing's header, following's hand-over). */
export interface RequestStart {
  readonly scenario: string;
  readonly op: OpName;
  readonly flowId: string | undefined;
  /** The run a journey's `getRun` asks for (a journey polling a run itself; following hands it over). */
  readonly runId?: string | undefined;
  /** The session a `getHistory` reads, when the sender knows it. */
  readonly sessionId?: string | undefined;
}

/** What an output may attach to one request: headers to send, and its end. */
export interface RequestHook {
  readonly headers: Readonly<Record<string, string>> | undefined;
  end(sample: RunSample): void;
}

/** The hooks a run calls per request, iteration, check and asynchronous end; every one optional, none may throw. */
export interface SampleHooks {
  /** Before a request is sent; what it returns goes with the request and hears its sample. */
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
}

/**
 * Which samples carry their parsed `value`: `all`, the answers of the listed operations,
 * `async` (runs that answered `running`, triggers, and `getRun` answers of a finished run), or
 * none (default). Ask for no more than is read: a body identical to the last one is not parsed
 * unless its value is read, and parsing a 4 KB page costs about as much as the rest of the
 * request. One that asks for `async` hears only the samples that carry a value, so the rest of
 * the requests cost it nothing.
 */
export type ValuesWanted = 'all' | 'async' | readonly OpName[];

/** What the run's state dispatches to: an output's or a phase's hooks, and the values it wants. */
export interface SampleListener extends SampleHooks {
  readonly values?: ValuesWanted | undefined;
}
