/**
 * What one start of a scenario's schedule does: send one request of the mix, or run one
 * iteration of the journey. Both record through the run's state; neither throws.
 */
import type { CallOptions, Client } from '../api/index.js';
import type { Clock } from '../core/clock.js';
import { NOT_STARTED, type Job } from '../load/index.js';
import { createMixPicker, IterationFailure, type DataRow, type Journey, type ResolvedScenario, type RowSource } from '../scenario/index.js';
import { errorLocation } from './error-location.js';
import { addressIdsOf, callOperation, flowOf, type OperationTargets } from './operations.js';
import type { RunState, ScenarioState } from './run-state.js';
import { createVu } from './vu.js';

/** What a job needs. */
export interface JobDeps {
  readonly scenario: ResolvedScenario;
  readonly state: RunState;
  readonly unit: ScenarioState;
  readonly client: Client;
  readonly clock: Clock;
  readonly targets: OperationTargets;
}

/** A job that sends one request of the mix per start. */
export function createMixJob(d: JobDeps): Job {
  const { scenario, state, unit, client, targets } = d;
  const pick = createMixPicker(scenario.mix, scenario.seed);
  const deadlines = scenario.deadlinesMs;
  const validate = scenario.validate;
  // Calls without headers share one options object per operation (the signal is the run's, the same for every job).
  const plain = new Map<string, CallOptions>();
  return async (intendedNs, signal) => {
    const entry = pick();
    const flowId = flowOf(entry, targets);
    // The ids of the address are picked before the request's hook, so its span carries the full URL.
    const ids = addressIdsOf(entry, targets);
    const hook = state.hook({ scenario: unit.name, op: entry.op, flowId, ...ids });
    const deadlineMs = deadlines[entry.op];
    let opts: CallOptions;
    if (hook?.headers !== undefined) opts = { signal, headers: { ...hook.headers }, deadlineMs, validate };
    else {
      const shared = plain.get(entry.op);
      opts = shared !== undefined && shared.signal === signal ? shared : { signal, deadlineMs, validate };
      plain.set(entry.op, opts);
    }
    const result = await callOperation(client, entry, targets, opts, ids);
    if (result.ok && entry.op === 'run') {
      const id: unknown = (result.value as { id?: unknown } | null)?.id;
      if (typeof id === 'string') targets.runIds.add(id);
    }
    const input = typeof entry.input === 'string' ? entry.input : undefined;
    state.record(unit, { scenario: unit.name, op: entry.op, flowId, negative: entry.negative, intendedNs, step: undefined, sessionId: entry.sessionId, input }, result, hook, signal.aborted, deadlineMs);
  };
}

/** What a journey job needs besides the common deps. */
export interface JourneyJobDeps extends JobDeps {
  readonly journey: Journey;
  readonly data: RowSource | undefined;
  /** Called once when `unique` data ran out: the scenario stops scheduling. */
  readonly onDataExhausted: () => void;
  /**
   * This process's share of the run (0-based index): its k-th iteration is the run's
   * `index + k·count`-th, so shards read the rows the unsharded run would, each row once.
   */
  readonly shard?: { readonly index: number; readonly count: number };
}

const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/** Longest message of a thrown error kept before its location, so the location survives the report's cut. */
const MAX_THROWN_MESSAGE = 240;

/** What a journey threw, with where (`TypeError: boom (at scenarios/x.ts:12:7)`) when its stack says. */
function thrownMessage(err: unknown, source: string | undefined): string {
  const text = `${err instanceof Error ? err.name : 'Error'}: ${messageOf(err)}`;
  const at = errorLocation(err, source);
  if (at === undefined) return text;
  return `${text.length > MAX_THROWN_MESSAGE ? `${text.slice(0, MAX_THROWN_MESSAGE)}…` : text} (at ${at})`;
}

/**
 * A job that runs one journey iteration per start, timed from its intended start. A start that
 * finds the `unique` rows used up answers `NOT_STARTED` at once: no iteration began, so the
 * executor does not count it (`load.started` is the iterations that ran).
 */
export function createJourneyJob(d: JourneyJobDeps): Job {
  const { state, unit, client, clock, targets, journey } = d;
  let next = 0;
  let exhausted = false;
  const ofRun = (k: number): number => (d.shard === undefined ? k : d.shard.index + k * d.shard.count);
  return (intendedNs, signal) => {
    const data = d.data === undefined ? {} : d.data.row(ofRun(next));
    if (data === undefined) {
      if (!exhausted) {
        exhausted = true;
        d.onDataExhausted();
      }
      return NOT_STARTED;
    }
    return runIteration(ofRun(next++), data, intendedNs, signal);
  };

  async function runIteration(iteration: number, data: DataRow, intendedNs: number, signal: AbortSignal): Promise<void> {
    state.iterationStarted(unit);
    const vu = createVu({ client, clock, state, scenario: unit, iteration, data, flowId: targets.defaultFlowId, signal, deadlinesMs: d.scenario.deadlinesMs, validate: d.scenario.validate });
    let result: 'completed' | 'failed' | 'interrupted' = 'completed';
    let error: string | undefined;
    try {
      await journey(vu);
      if (signal.aborted) result = 'interrupted';
    } catch (err) {
      // A journey cut by the run's stop ends interrupted, whatever it threw on the way out.
      if (signal.aborted) result = 'interrupted';
      else {
        result = 'failed';
        error = err instanceof IterationFailure ? err.message : thrownMessage(err, d.scenario.source);
      }
    }
    state.iteration(unit, { scenario: unit.name, iteration, intendedNs, endNs: clock.nowNs(), result, error });
  }
}
