/**
 * The journey contract: what a scenario's code (or its compiled `steps`) sees of one iteration.
 * A journey is an async function of a `Vu`; the run engine implements `Vu`, times and classifies
 * every request it makes exactly as a mix request, and counts the iteration's outcome.
 */
import type { CallOptions, Client, HttpRequest, HttpResult } from '../api/index.js';
import { FlowgaugeError } from '../core/errors.js';

/** What a check compared: `vu.check(name, condition, { expected, actual })`; either may be left out. */
export interface CheckDetail {
  readonly expected?: unknown;
  readonly actual?: unknown;
}

/** One row of a scenario's data (a JSON object, or a CSV row keyed by the header). Plain, frozen. */
export type DataRow = Readonly<Record<string, unknown>>;

/** The client operations a journey may call, with the client's own signatures and results. */
export type VuOperations = Pick<Client, 'run' | 'stream' | 'getRun' | 'listFlows' | 'getFlow' | 'createSession' | 'getHistory' | 'getUsage' | 'trigger'>;

/**
 * One virtual user's view of one iteration. Every operation resolves to `{ ok, value }` or
 * `{ ok: false, error }` and never rejects; each is timed and counted in the report's `ops`,
 * except one called after the run's stop, which is not sent and resolves `ABORTED` uncounted.
 */
export interface Vu extends VuOperations {
  /** Global index of this iteration (0-based, across the whole scenario: a shard i of N runs i, i + N, …). */
  readonly iteration: number;
  /** This iteration's data row; an empty object when the scenario has no `data`. */
  readonly data: DataRow;
  /** The run's default flow (the first published one, or the scenario's choice). */
  readonly flowId: string;
  /** Name of the scenario this iteration belongs to. */
  readonly scenario: string;
  /** Aborted when the run stops (Ctrl-C, abort-on-fail, end of the grace period). */
  readonly signal: AbortSignal;
  /**
   * Waits `duration` (`"2s"`, or a number of ms). When the run's stop (the end of the grace
   * period) cuts the wait, or came before it, it rejects and the iteration ends there as
   * `interrupted`: nothing after it could be sent anyway.
   */
  sleep(duration: string | number): Promise<void>;
  /**
   * Records a named check (`checks.<name>` in the report); returns `condition`. `detail` says
   * what was expected and what was seen: when the check fails, the report keeps up to 3
   * distinct examples (`checks.<name>.examples`; strings as they are, other values as JSON,
   * each cut to 200 characters).
   */
  check(name: string, condition: boolean, detail?: CheckDetail): boolean;
  /**
   * A request outside the interface's operations (an auth call, a health page, a webhook of
   * yours), sent on the same transports and timed the same way, counted in the report's `ops`
   * as `http:<name>` (latency, statuses, errors). A relative `path` or `url` goes to the base
   * URL; the API token is sent only to the API's own origin unless `auth: true`. It counts
   * toward availability when it goes to the API's origin, not otherwise; `slo` says otherwise.
   * Resolves to `{ ok, value | error, response }` and never rejects for what the target does; a
   * bad `name`, URL or method throws (the iteration fails with the message).
   */
  http(req: VuHttpRequest, opts?: CallOptions): Promise<HttpResult>;
  /** Times `fn` as a named step (`steps.<name>` in the report) and returns what it returned. */
  step<T>(name: string, fn: () => Promise<T>): Promise<T>;
  /**
   * Ends this iteration as `failed` with `message` (counted among `iterations.errors`);
   * the run goes on. A journey that throws ends the same way.
   */
  fail(message: string): never;
}

/** A request of `vu.http`: `HttpRequest` with the name it is counted under. */
export interface VuHttpRequest extends HttpRequest {
  /** Counted as `ops["http:<name>"]`: letters, digits, `.`, `_`, `-` (at most 64). */
  readonly name: string;
  /** Counts toward availability (the SLO): default true for the API's origin, false for another. */
  readonly slo?: boolean;
}

/** A journey: one iteration of a user's work. */
export type Journey = (vu: Vu) => Promise<void> | void;

/** The error `vu.fail` throws: the engine records its message and does not treat it as a bug. */
export class IterationFailure extends FlowgaugeError {
  override readonly name = 'IterationFailure';
  constructor(message: string) {
    super('FG_ITERATION_FAILED', message);
  }
}
