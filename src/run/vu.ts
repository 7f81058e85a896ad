/**
 * The `Vu` a journey gets for one iteration: the client's operations, each timed, judged and
 * counted through the run's state exactly as a mix request; `sleep` on the run's clock; named
 * checks and steps. Operations never reject: the client's results are data.
 */
import { httpTarget, type ApiResult, type CallOptions, type Client, type StreamCallOptions, type StreamResult, type ValidateMode } from '../api/index.js';
import { checkExample } from '../collect/index.js';
import type { Clock } from '../core/clock.js';
import { HTTP_OP_NAME, type HttpOpName, type OpName } from '../core/ops.js';
import { FlowgaugeError, InvalidArgumentError } from '../core/errors.js';
import { parseDurationMs } from '../core/units.js';
import { IterationFailure, type DataRow, type Vu } from '../scenario/index.js';
import type { RunState, ScenarioState } from './run-state.js';

/** What one iteration's `Vu` is made of. */
export interface VuDeps {
  readonly client: Client;
  readonly clock: Clock;
  readonly state: RunState;
  readonly scenario: ScenarioState;
  readonly iteration: number;
  readonly data: DataRow;
  readonly flowId: string;
  /** The run's stop signal for in-flight work (aborted at the end of the grace period). */
  readonly signal: AbortSignal;
  /** The scenario's whole-request deadlines by operation (`ResolvedScenario.deadlinesMs`). */
  readonly deadlinesMs: Readonly<Partial<Record<OpName, number>>>;
  /** How much of each 2xx body its calls check (`ResolvedScenario.validate`; default `full`). */
  readonly validate?: ValidateMode;
}

const EMPTY: DataRow = Object.freeze({});

/**
 * What `vu.sleep` rejects with when the run's stop (the end of the grace period) cuts it, or
 * when it is called after the stop: the iteration ends there and is counted `interrupted`.
 */
export class IterationInterrupted extends FlowgaugeError {
  override readonly name = 'IterationInterrupted';
  constructor() {
    super('FG_ITERATION_INTERRUPTED', 'the run stopped during think time: the iteration ends here');
  }
}

/** Creates the `Vu` of one iteration. */
export function createVu(d: VuDeps): Vu {
  const { client, clock, state, scenario, signal, deadlinesMs, validate } = d;
  let step: string | undefined;

  async function call<R extends ApiResult<unknown> | StreamResult>(
    op: OpName,
    flowId: string | undefined,
    extra: { readonly sessionId?: string | undefined; readonly input?: unknown; readonly runId?: string },
    opts: CallOptions | undefined,
    send: (o: CallOptions) => Promise<R>,
  ): Promise<R> {
    // A request that would start after the run's stop is never sent nor counted: the client
    // answers ABORTED at once (the run's signal, whatever the journey passed) and nothing is recorded.
    if (signal.aborted) return send({ ...opts, signal });
    const hook = state.hook({ scenario: scenario.name, op, flowId, runId: extra.runId, sessionId: op === 'getHistory' ? extra.sessionId : undefined });
    const headers = hook?.headers === undefined ? opts?.headers : { ...hook.headers, ...opts?.headers };
    const o: CallOptions = {
      deadlineMs: deadlinesMs[op],
      validate,
      ...opts,
      signal: opts?.signal ?? signal,
      ...(headers !== undefined ? { headers } : {}),
    };
    const intendedNs = clock.nowNs();
    const result = await send(o);
    state.record(
      scenario,
      {
        scenario: scenario.name,
        op,
        flowId,
        negative: false,
        intendedNs,
        step,
        sessionId: extra.sessionId,
        input: typeof extra.input === 'string' ? extra.input : undefined,
      },
      result,
      hook,
      signal.aborted,
      o.deadlineMs,
    );
    return result;
  }

  const vu: Vu = {
    iteration: d.iteration,
    data: d.data ?? EMPTY,
    flowId: d.flowId,
    scenario: scenario.name,
    signal,

    run: (flowId, body, opts) => call('run', flowId, { sessionId: body.session_id, input: body.input }, opts, (o) => client.run(flowId, body, o)),
    stream: (flowId, body, opts?: StreamCallOptions) =>
      call('stream', flowId, { sessionId: body.session_id, input: body.input }, opts, (o) => client.stream(flowId, body, { ...o, ...(opts?.onEvent ? { onEvent: opts.onEvent } : {}) })),
    // The run id goes with the request's start: following hands the run over to this journey.
    getRun: (runId, opts) => call('getRun', undefined, { runId }, opts, (o) => client.getRun(runId, o)),
    listFlows: (query, opts) => call('listFlows', undefined, {}, opts, (o) => client.listFlows(query, o)),
    getFlow: (flowId, opts) => call('getFlow', flowId, {}, opts, (o) => client.getFlow(flowId, o)),
    createSession: (body, opts) => call('createSession', body.flow_id, {}, opts, (o) => client.createSession(body, o)),
    getHistory: (sessionId, opts) => call('getHistory', undefined, { sessionId }, opts, (o) => client.getHistory(sessionId, o)),
    getUsage: (query, opts) => call('getUsage', undefined, {}, opts, (o) => client.getUsage(query, o)),
    trigger: (flowId, payload, opts) => call('trigger', flowId, {}, opts, (o) => client.trigger(flowId, payload, o)),

    async http(req, opts) {
      const name = String((req as { name?: unknown } | undefined)?.name ?? '');
      if (!HTTP_OP_NAME.test(name)) throw new InvalidArgumentError(`vu.http: name ${JSON.stringify(name)} must be letters, digits, ".", "_" or "-" (at most 64): it is counted as ops["http:<name>"]`);
      if (client.http === undefined) throw new InvalidArgumentError('vu.http: this run\'s client cannot send other requests');
      const op: HttpOpName = `http:${name}`;
      const sameOrigin = httpTarget(req, client.baseUrl).origin === new URL(client.baseUrl).origin;
      const send = client.http.bind(client);
      // As an operation's: after the stop it is not sent nor counted.
      if (signal.aborted) return send(req, { ...opts, signal, name });
      // No request hook (spans name the interface's routes); the in-flight count a hook keeps is kept here.
      scenario.flight.n++;
      const o = { ...opts, signal: opts?.signal ?? signal, name };
      const intendedNs = clock.nowNs();
      const result = await send(req, o);
      const ctx = { scenario: scenario.name, op, flowId: undefined, negative: false, intendedNs, step, sessionId: undefined, input: undefined, outsideSlo: !(req.slo ?? sameOrigin), otherOrigin: !sameOrigin };
      state.record(scenario, ctx, result, undefined, signal.aborted, o.deadlineMs);
      return result;
    },

    sleep(duration) {
      // Think time the run's stop cuts ends the iteration there, as interrupted: what the journey
      // would do next cannot be sent, so it must not look like the target's doing.
      if (signal.aborted) return Promise.reject(new IterationInterrupted());
      const ms = parseDurationMs(duration);
      if (ms === undefined || ms <= 0) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        const done = (): void => {
          clock.clearTimer(timer);
          signal.removeEventListener('abort', cut);
          resolve();
        };
        const cut = (): void => {
          clock.clearTimer(timer);
          reject(new IterationInterrupted());
        };
        const timer = clock.setTimer(clock.nowNs() + ms * 1e6, done);
        signal.addEventListener('abort', cut, { once: true });
      });
    },

    check(name, condition, detail) {
      const passed = condition === true;
      // After the run's stop an iteration only winds down: what it checks then is not the target's doing.
      if (signal.aborted) return passed;
      // A failed check's detail becomes an example; its values may have come from the server: no token.
      const example = passed ? undefined : checkExample(detail, (s) => client.redact?.(s) ?? s);
      state.check(scenario, { scenario: scenario.name, name: String(name), passed, ...(example !== undefined ? { example } : {}) });
      return passed;
    },

    async step<T>(name: string, fn: () => Promise<T>): Promise<T> {
      const outer = step;
      step = String(name);
      const startNs = clock.nowNs();
      try {
        return await fn();
      } finally {
        // A step the run's stop cut short measured the stop, not the target.
        if (!signal.aborted) state.step(scenario, step, clock.nowNs() - startNs);
        step = outer;
      }
    },

    fail(message) {
      throw new IterationFailure(String(message));
    },
  };
  return vu;
}
