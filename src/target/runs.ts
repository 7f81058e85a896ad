/**
 * Runs: their plan (tokens and times, decided at start), their lifecycle (`running` until the
 * planned end, then `completed` or `failed`) and their JSON view. Progress and partial output
 * are computed from the clock when read, so only one timer per run is needed (its end).
 *
 * A run keeps no text: its output is a function of a seed and a token count, regenerated on
 * read, so a finished run costs a few hundred bytes however long its output (it held 1.4 kB,
 * most of it token strings and the same text joined, when it kept them).
 */
import { NS_PER_MS, type Clock, type TimerHandle } from '../core/clock.js';
import type { RunStatus } from '../core/types.js';
import { outputSeed, planTokenTimes, promptTokens, tokensOf } from './generator.js';
import type { ResolvedLatency } from './options.js';
import type { Prng } from './prng.js';
import { createRecordStore, type RecordLimits, type SizedRecord } from './record-store.js';
import type { TimerSet } from './timers.js';

/** How a run was started. */
export type RunSource = 'run' | 'stream' | 'trigger';

/** The `error` value of a failed run (the interface leaves its type open; this is our choice). */
export interface RunError {
  readonly code: string;
  readonly message: string;
}

/** A run held by the service. */
export interface RunRecord extends SizedRecord {
  readonly id: string;
  readonly flowId: string;
  readonly account: string;
  readonly sessionId: string | undefined;
  readonly source: RunSource;
  /** Seed of the run's text (`outputSeed`): with `produced`, all that is needed to rebuild it. */
  readonly textSeed: number;
  /** Tokens the run produces (for a failing run: those before the failure). */
  readonly produced: number;
  /**
   * Emission time of each token (ns, monotonic) while running; emptied when the run finishes,
   * since reads of a finished run no longer need it (a stream writer keeps its own reference).
   */
  timesNs: readonly number[];
  /** Tokens the run planned (progress is measured against this). */
  readonly planned: number;
  readonly startNs: number;
  readonly endNs: number;
  readonly createdAtMs: number;
  readonly promptTokens: number;
  readonly willFail: boolean;
  status: RunStatus;
  error: RunError | null;
  waiters: Array<(run: RunRecord) => void> | undefined;
  timer: TimerHandle | undefined;
}

/** A pause to add after some tokens (a stream stall fault). */
export interface RunStall {
  readonly afterTokens: number;
  readonly pauseNs: number;
}

/** Called when runs start and finish. */
export interface RunHooks {
  started(run: RunRecord): void;
  finished(run: RunRecord): void;
}

/** Starts, settles and reads runs. */
export interface RunEngine {
  start(flowId: string, account: string, input: string, sessionId: string | undefined, source: RunSource, stall?: RunStall): RunRecord;
  get(id: string): RunRecord | undefined;
  /** Every token the run produces (its stream's events). */
  tokens(run: RunRecord): string[];
  /** The text produced so far: all of it once the run has finished. */
  output(run: RunRecord): string;
  /** What the store holds: runs, their estimated bytes, and runs forgotten to stay in bounds. */
  held(): { readonly records: number; readonly bytes: number; readonly forgotten: number };
  /** Calls `fn` when the run has finished (at once if it has). */
  whenFinished(run: RunRecord, fn: (run: RunRecord) => void): void;
  /** The run body of the interface (run response and status read). */
  view(run: RunRecord): Record<string, unknown>;
  /** Completion instant in wall ms. */
  completedAtMs(run: RunRecord): number;
}

/** What the engine needs. */
export interface RunEngineDeps {
  readonly clock: Clock;
  readonly timers: TimerSet;
  readonly prng: Prng;
  readonly seed: number;
  readonly latency: ResolvedLatency;
  readonly failureRate: number;
  /** Bounds of the runs kept for reads. */
  readonly limits: RecordLimits;
  readonly hooks: RunHooks;
}

/**
 * Estimated bytes of a finished run: the object with its 20 fields, its id and the map entry
 * (flow and account ids are shared with the catalogue). Measured about 330 bytes; rounded up.
 */
export const RUN_RECORD_BYTES = 400;

const NO_TIMES: readonly number[] = Object.freeze([]);

const FAILURE: RunError = { code: 'FLOW_EXECUTION_FAILED', message: 'a component of the flow failed during the run (simulated)' };

/** Creates the run engine. */
export function createRunEngine(deps: RunEngineDeps): RunEngine {
  const { clock, timers, prng, latency, hooks } = deps;
  const runs = createRecordStore<RunRecord>(deps.limits);

  const finish = (run: RunRecord): void => {
    if (run.status !== 'running') return;
    timers.clear(run.timer);
    run.timer = undefined;
    run.status = run.willFail ? 'failed' : 'completed';
    run.error = run.willFail ? FAILURE : null;
    run.timesNs = NO_TIMES;
    hooks.finished(run);
    const waiters = run.waiters;
    run.waiters = undefined;
    if (waiters !== undefined) for (const w of waiters) w(run);
  };
  // A read may come between the planned end and its timer (timers can fire late); settle then.
  const settle = (run: RunRecord): void => {
    if (run.status === 'running' && clock.nowNs() >= run.endNs) finish(run);
  };
  const emitted = (run: RunRecord, nowNs: number): number => {
    if (run.status !== 'running') return run.produced;
    const t = run.timesNs;
    let lo = 0;
    let hi = t.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((t[mid] as number) <= nowNs) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };

  return {
    start(flowId, account, input, sessionId, source, stall) {
      const startNs = clock.nowNs();
      const planned = prng.int(latency.minTokens, latency.maxTokens);
      const willFail = deps.failureRate > 0 && prng.next() < deps.failureRate;
      const produced = willFail ? prng.int(0, planned - 1) : planned;
      const times = planTokenTimes(latency, prng, planned, startNs, promptTokens(input));
      if (stall !== undefined && stall.afterTokens <= produced) {
        for (let i = stall.afterTokens; i < times.length; i++) times[i] = (times[i] as number) + stall.pauseNs;
      }
      // A failing run fails when its next token was due; a good one a little after its last.
      let endNs = willFail ? (times[produced] as number) : (times[planned - 1] as number) + latency.overheadNs;
      if (stall !== undefined && !willFail && stall.afterTokens === planned) endNs += stall.pauseNs;
      const run: RunRecord = {
        id: `run_${prng.hex(16)}`,
        flowId,
        account,
        sessionId,
        source,
        textSeed: outputSeed(deps.seed, flowId, input),
        produced,
        timesNs: times.slice(0, produced),
        planned,
        startNs,
        endNs,
        createdAtMs: clock.wallMs(),
        promptTokens: promptTokens(input),
        willFail,
        status: 'running',
        error: null,
        waiters: undefined,
        timer: undefined,
        bytes: RUN_RECORD_BYTES,
      };
      runs.add(run);
      hooks.started(run);
      if (endNs <= startNs) finish(run);
      else run.timer = timers.set(endNs, () => finish(run));
      return run;
    },
    get(id) {
      const run = runs.get(id);
      if (run !== undefined) settle(run);
      return run;
    },
    tokens: (run) => tokensOf(run.textSeed, run.produced),
    output(run) {
      settle(run);
      return tokensOf(run.textSeed, emitted(run, clock.nowNs())).join('');
    },
    held: () => ({ records: runs.size, bytes: runs.bytes, forgotten: runs.forgotten }),
    whenFinished(run, fn) {
      settle(run);
      if (run.status !== 'running') fn(run);
      else (run.waiters ??= []).push(fn);
    },
    completedAtMs: (run) => run.createdAtMs + (run.endNs - run.startNs) / NS_PER_MS,
    view(run) {
      settle(run);
      const running = run.status === 'running';
      const k = emitted(run, clock.nowNs());
      const progress = run.status === 'completed' ? 100 : Math.min(99, Math.floor((100 * k) / run.planned));
      const output = tokensOf(run.textSeed, k).join('');
      return {
        id: run.id,
        flow_id: run.flowId,
        status: run.status,
        progress,
        output,
        error: run.error,
        created_at: new Date(run.createdAtMs).toISOString(),
        completed_at: running ? null : new Date(run.createdAtMs + (run.endNs - run.startNs) / NS_PER_MS).toISOString(),
        usage: { total_tokens: run.promptTokens + k, prompt_tokens: run.promptTokens, completion_tokens: k },
      };
    },
  };
}
