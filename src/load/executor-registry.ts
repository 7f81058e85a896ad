/**
 * The executors, listed once. Everything that depends on which executors exist reads this list:
 * the scenario schema's `load` (`loadSchema`), its resolution (`resolveLoad`), the factory
 * (`createExecutor`), what reports and progress know of a load (`load-info.ts`), and the types
 * (`ResolvedLoad`, `LoadInput`). Adding an executor is its module under `executors/` (see
 * `executor-kit.ts`), one line here, and its section in docs/scenarios.md.
 */
import { z } from 'zod';
import { InvalidArgumentError, type ConfigIssue } from '../core/errors.js';
import { ratePerS, show, type RateSpec } from '../core/unit-schemas.js';
import { DEFAULT_GRACEFUL_STOP_MS, DEFAULT_MAX_IN_FLIGHT, type AnyExecutorModule, type ClosedLoadBase, type LoadOf, type LoadOverrides } from './executor-kit.js';
import { constantArrivalRate } from './executors/constant-arrival-rate.js';
import { constantConcurrency } from './executors/constant-concurrency.js';
import { poisson } from './executors/poisson.js';
import { rampingArrivalRate } from './executors/ramping-arrival-rate.js';

/** Every executor, in the order help texts show them; the first is the default. */
const MODULES = [constantArrivalRate, rampingArrivalRate, poisson, constantConcurrency] as const;

type Modules = (typeof MODULES)[number];
type NamesOf<T extends readonly { readonly name: string }[]> = { readonly [K in keyof T]: T[K]['name'] };
type SchemasOf<T extends readonly { readonly schema: unknown }[]> = { -readonly [K in keyof T]: T[K]['schema'] };

/** A load with every unit converted (rates per second, durations in ms): one of the executors' own. */
export type ResolvedLoad = LoadOf<Modules>;

/** A closed-model load (`isClosedModel`). */
export type ClosedLoad = Extract<ResolvedLoad, ClosedLoadBase>;

/** The `load` section of a scenario as written: one of the executors' input types. */
export type LoadInput = NonNullable<Modules['input']>;

/** A parsed load, rates still specs. */
export type ParsedLoad = z.output<Modules['schema']>;

/** Executor names, in the order shown in help texts. */
export const EXECUTORS = MODULES.map((m) => m.name) as unknown as NamesOf<typeof MODULES>;

/** The executor a `load` without `executor` gets. */
export const DEFAULT_EXECUTOR: (typeof EXECUTORS)[number] = MODULES[0].name;

const byName: ReadonlyMap<string, AnyExecutorModule> = new Map(MODULES.map((m) => [m.name, m as AnyExecutorModule]));

/** The module of a resolved load's executor. */
export function executorOf(load: { readonly executor: string }): AnyExecutorModule {
  const m = byName.get(load.executor);
  if (m === undefined) throw new InvalidArgumentError(`unknown executor ${JSON.stringify(load.executor)}`);
  return m;
}

const schemas = MODULES.map((m) => m.schema) as unknown as SchemasOf<typeof MODULES>;

/** The `load` of a scenario: one executor's object, `executor` defaulting to the first. */
export const loadSchema = z.preprocess(
  (v) => (v !== null && typeof v === 'object' && !Array.isArray(v) && (v as { executor?: unknown }).executor === undefined ? { ...v, executor: DEFAULT_EXECUTOR } : v),
  z.discriminatedUnion('executor', schemas, {
    error: (iss) =>
      iss.code === 'invalid_union'
        ? `${show((iss.input as { executor?: unknown } | undefined)?.executor)} is not an executor; one of ${EXECUTORS.join(', ')}`
        : 'must be an object such as { rate: "100/min", duration: "1m" }',
  }),
);

/** Resolves a parsed load against the tier and applies the overrides; problems go to `issues`. */
export function resolveLoad(load: ParsedLoad, tierLimitPerMinute: number, overrides: LoadOverrides, issues: ConfigIssue[]): ResolvedLoad {
  const perS = (spec: RateSpec): number => ratePerS(spec, tierLimitPerMinute);
  return executorOf(load).resolve(load, {
    perS,
    overrides,
    overrideRatePerS: overrides.rate === undefined ? undefined : perS(overrides.rate),
    issue: (path, message) => issues.push({ path, message }),
    gracefulStopMs: (l) => l.gracefulStop ?? DEFAULT_GRACEFUL_STOP_MS,
    maxInFlight: (l) => overrides.maxInFlight ?? l.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT,
  }) as ResolvedLoad;
}
