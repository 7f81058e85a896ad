/**
 * What an executor module is (`ExecutorModule`): one file under `executors/` holds an executor's
 * schema piece (the zod object of its `load`), its resolution (rates against the tier, defaults,
 * command-line overrides), what the report and the progress line need to know of it (length,
 * mean and peak rate) and its factory. `executor-registry.ts` lists the modules once; the
 * scenario format, the factory and the report read everything through that list. Also the
 * pieces the modules share: the fields every executor takes, the defaults, the checks.
 */
import { z } from 'zod';
import type { Clock } from '../core/clock.js';
import { InvalidArgumentError } from '../core/errors.js';
import { duration, type RateSpec } from '../core/unit-schemas.js';
import type { Executor, Job, ShardSpec } from './types.js';

/**
 * Default cap on requests in flight. At the pro limit (16.7/s) it holds a minute of stalled
 * requests before arrivals are dropped; raise it for rates of hundreds per second or more.
 */
export const DEFAULT_MAX_IN_FLIGHT = 1000;
/** Default time in-flight requests get to finish after the schedule ends. */
export const DEFAULT_GRACEFUL_STOP_MS = 5000;
/** Most requests (or iterations) in flight, and most closed-model workers, one process can hold. */
export const MAX_IN_FLIGHT = 100_000;
export const MAX_CONCURRENCY = 50_000;

const COUNT = 'must be an integer >= 1';
// The message is built when it is needed: the first toLocaleString loads ICU's number formats,
// ~10 ms of every run's start-up when it ran here for each executor's schema.
/** A whole number from 1 to `max` (what one process can hold). */
export const count = (max: number) =>
  z.number().int({ error: COUNT }).min(1, { error: COUNT }).max(max, { error: () => `must be at most ${max.toLocaleString('en-US')}: one process cannot hold more` });

/** `maxInFlight` of the open-model executors. */
export const maxInFlightField = count(MAX_IN_FLIGHT).optional();
/** `gracefulStop` of every executor. */
export const gracefulStopField = duration('non-negative').optional();

/** Fields every executor's input takes. */
export interface LoadCommonInput {
  /** Time in-flight requests get to finish after the schedule ends (default 5s). */
  readonly gracefulStop?: number | string;
}

/** Fields of the open-model executors' input. */
export interface OpenLoadInput extends LoadCommonInput {
  /** Arrivals that find this many requests in flight are dropped and counted (default 1000). */
  readonly maxInFlight?: number;
}

/** What every resolved load has. */
export interface LoadBase {
  readonly executor: string;
  /** Time in-flight jobs get to finish after the schedule ends (ms). */
  readonly gracefulStopMs: number;
}

/** An open-model load: arrivals at intended instants, at most `maxInFlight` at once. */
export interface OpenLoadBase extends LoadBase {
  readonly maxInFlight: number;
}

/** A closed-model load: `concurrency` workers, each starting its next job when the last settles. */
export interface ClosedLoadBase extends LoadBase {
  readonly concurrency: number;
}

/** Command-line changes to a load, checked (undefined where none was given). */
export interface LoadOverrides {
  readonly durationMs: number | undefined;
  readonly rate: RateSpec | undefined;
  readonly maxInFlight: number | undefined;
}

/** What a module's `resolve` is given besides its parsed load. */
export interface LoadResolution {
  /** A rate spec in requests per second against the scenario's tier. */
  perS(spec: RateSpec): number;
  readonly overrides: LoadOverrides;
  /** `overrides.rate` in requests per second, when given. */
  readonly overrideRatePerS: number | undefined;
  /** Records a problem (paths of overrides are `overrides.<name>`). */
  issue(path: string, message: string): void;
  /** The grace period: the load's own, else the default. */
  gracefulStopMs(parsed: { readonly gracefulStop?: number | undefined }): number;
  /** The in-flight cap: the override, else the load's own, else the default. */
  maxInFlight(parsed: { readonly maxInFlight?: number | undefined }): number;
}

/** What a module's factory gets, the checks every executor shares already made. */
export interface ExecutorBuild {
  readonly clock: Clock;
  readonly job: Job;
  /** Seed of random gaps (an integer). */
  readonly seed: number;
  /** The share of the schedule this executor produces (checked). */
  readonly shard: ShardSpec;
  /**
   * Where in the schedule it starts, in ms (checked, >= 0; `ExecutorDeps.startOffsetMs`): pass it
   * to the `OpenExecutor` or `ClosedExecutor`, which skip (open: count as missed) what was due before.
   */
  readonly startOffsetMs: number;
}

/** The zod object of one executor's `load`: strict, its `executor` a literal of its name. */
export type LoadSchema<Name extends string> = z.ZodObject<{ executor: z.ZodLiteral<Name> } & z.core.$ZodLooseShape, z.core.$strict>;

/**
 * One executor, whole. `Name` is its `executor` value, `S` the zod object of its `load` as
 * written, `L` its resolved load, `I` the input type a scenario author writes (documented).
 */
export interface ExecutorModule<Name extends string, S extends LoadSchema<Name>, L extends (OpenLoadBase | ClosedLoadBase) & { readonly executor: Name }, I> {
  readonly name: Name;
  /** Open model (arrivals on a schedule, `maxInFlight`) or closed (`concurrency` workers). */
  readonly model: L extends ClosedLoadBase ? 'closed' : 'open';
  /** Its piece of the scenario schema. */
  readonly schema: S;
  /** From the parsed load (rates still specs) to the resolved one, overrides applied; problems via `r.issue`. */
  resolve(parsed: z.output<S>, r: LoadResolution): L;
  /** Schedule length in ms. */
  durationMs(load: L): number;
  /** Mean target rate over the schedule, per second (arrivals expected ÷ duration); 0 for the closed model. */
  meanRatePerS(load: L): number;
  /** Highest target rate reached, per second; 0 for the closed model. */
  peakRatePerS(load: L): number;
  /** How the run's opening line gives its length (`for 30s`, `for its stages`). */
  shownLength(load: L): string;
  /** Checks the load (programmer errors throw `InvalidArgumentError`) and builds the executor. */
  create(load: L, build: ExecutorBuild): Executor;
  /** Type only, never set: the input type of the module's `load` (`LoadInput` is their union). */
  readonly input?: I;
}

/** Any executor module (the registry's element type). */
export type AnyExecutorModule = ExecutorModule<string, any, any, unknown>;

/** The resolved load of a module. */
export type LoadOf<M> = M extends ExecutorModule<string, infer _S, infer L, infer _I> ? L : never;

/** Declares an executor module, its types inferred (`I` given: the documented input type). */
export function defineExecutor<I>() {
  return <Name extends string, S extends LoadSchema<Name>, L extends (OpenLoadBase | ClosedLoadBase) & { readonly executor: Name }>(
    m: ExecutorModule<Name, S, L, I>,
  ): ExecutorModule<Name, S, L, I> => m;
}

/** Seconds of a duration for the run's opening line (`for 30s`). */
export const forSeconds = (ms: number): string => `for ${ms / 1000}s`;

export function checkPositive(name: string, v: number): void {
  if (!(v > 0) || !Number.isFinite(v)) throw new InvalidArgumentError(`${name} must be a finite number > 0, got ${v}`);
}

export function checkNonNegative(name: string, v: number): void {
  if (!(v >= 0) || !Number.isFinite(v)) throw new InvalidArgumentError(`${name} must be a finite number >= 0, got ${v}`);
}

export function checkCount(name: string, v: number): void {
  if (!Number.isInteger(v) || v < 1) throw new InvalidArgumentError(`${name} must be an integer >= 1, got ${v}`);
}
