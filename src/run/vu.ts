/**
 * The `Vu` a journey gets for one iteration: the client's operations, each timed, judged and
 * counted through the run's state exactly as a mix request; `sleep` on the run's clock; named
 * checks and steps. Operations never reject: the client's results are data.
 */
import type { ApiResult, CallOptions, Client, StreamCallOptions, StreamResult } from '../api/index.js';
import type { Clock } from '../core/clock.js';
import type { OpName } from '../core/ops.js';
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
}

const EMPTY: DataRow = Object.freeze({});

/** Creates the `Vu` of one iteration. */
export function createVu(d: VuDeps): Vu {
  const { client, clock, state, scenario, signal, deadlinesMs } = d;
  let step: string | undefined;

  async function call<R extends ApiResult<unknown> | StreamResult>(
    op: OpName,
    flowId: string | undefined,
    extra: { readonly sessionId?: string | undefined; readonly input?: unknown },
    opts: CallOptions | undefined,
    send: (o: CallOptions) => Promise<R>,
  ): Promise<R> {
    const hook = state.hook({ scenario: scenario.name, op, flowId });
    const headers = hook?.headers === undefined ? opts?.headers : { ...hook.headers, ...opts?.headers };
    const o: CallOptions = {
      deadlineMs: deadlinesMs[op],
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
    getRun: (runId, opts) => call('getRun', undefined, {}, opts, (o) => client.getRun(runId, o)),
    listFlows: (query, opts) => call('listFlows', undefined, {}, opts, (o) => client.listFlows(query, o)),
    getFlow: (flowId, opts) => call('getFlow', flowId, {}, opts, (o) => client.getFlow(flowId, o)),
    createSession: (body, opts) => call('createSession', body.flow_id, {}, opts, (o) => client.createSession(body, o)),
    getHistory: (sessionId, opts) => call('getHistory', undefined, { sessionId }, opts, (o) => client.getHistory(sessionId, o)),
    getUsage: (query, opts) => call('getUsage', undefined, {}, opts, (o) => client.getUsage(query, o)),
    trigger: (flowId, payload, opts) => call('trigger', flowId, {}, opts, (o) => client.trigger(flowId, payload, o)),

    sleep(duration) {
      const ms = parseDurationMs(duration);
      if (ms === undefined || ms <= 0 || signal.aborted) return Promise.resolve();
      return new Promise<void>((resolve) => {
        const done = (): void => {
          clock.clearTimer(timer);
          signal.removeEventListener('abort', done);
          resolve();
        };
        const timer = clock.setTimer(clock.nowNs() + ms * 1e6, done);
        signal.addEventListener('abort', done, { once: true });
      });
    },

    check(name, condition) {
      const passed = condition === true;
      // After the run's stop an iteration only winds down: what it checks then is not the target's doing.
      if (!signal.aborted) state.check(scenario, { scenario: scenario.name, name: String(name), passed });
      return passed;
    },

    async step<T>(name: string, fn: () => Promise<T>): Promise<T> {
      const outer = step;
      step = String(name);
      const startNs = clock.nowNs();
      try {
        return await fn();
      } finally {
        state.step(scenario, step, clock.nowNs() - startNs);
        step = outer;
      }
    },

    fail(message) {
      throw new IterationFailure(String(message));
    },
  };
  return vu;
}
