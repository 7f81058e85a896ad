/**
 * A run plan: the scenarios one run drives at once (tenants, each with its own tier, token and
 * executor) and the thresholds judged on the whole run or, scoped as `<scenario>:<metric>`, on
 * one scenario. A single scenario is a plan of one.
 */
import type { ResolvedScenario, ResolvedThreshold, ScenarioInput } from './types.js';

/** A validated plan. Frozen. */
export interface ResolvedRunPlan {
  readonly kind: 'plan';
  /** Names the report directory and the run. */
  readonly name: string;
  readonly description: string;
  /** At least one; names are unique. */
  readonly scenarios: readonly ResolvedScenario[];
  /**
   * Thresholds of the whole run; a key `<scenario>:<metric>` is judged on that scenario alone.
   * A single scenario's plan carries the scenario's own thresholds here.
   */
  readonly thresholds: readonly ResolvedThreshold[];
  /** SLO objective, 0–1. */
  readonly objective: number;
  /** Environment variables that hold each scenario's token, by scenario name (tenants). */
  readonly tokenEnv: Readonly<Record<string, string>>;
  readonly source?: string;
}

/** True for a plan, false for a single scenario. */
export function isRunPlan(x: ResolvedScenario | ResolvedRunPlan): x is ResolvedRunPlan {
  return (x as { kind?: unknown }).kind === 'plan';
}

/** The plan of a single scenario, or the plan itself. */
export function planOf(x: ResolvedScenario | ResolvedRunPlan): ResolvedRunPlan {
  if (isRunPlan(x)) return x;
  return Object.freeze({
    kind: 'plan' as const,
    name: x.name,
    description: x.description,
    scenarios: [x],
    thresholds: x.thresholds,
    objective: x.objective,
    tokenEnv: {},
    ...(x.source !== undefined ? { source: x.source } : {}),
  });
}

/** One scenario of a run of several, as written: a scenario without `name`, plus its tenant fields. */
export type PlanScenarioInput = Omit<ScenarioInput, 'name'> & {
  /** Environment variable that holds this scenario's token (a literal token is refused). */
  readonly tokenEnv?: string;
  /** When this scenario starts, after the run's start (`"30s"`). */
  readonly startAfter?: string | number;
};

/** A run of several scenarios at once, as written in a file. */
export interface RunPlanInput {
  readonly name: string;
  readonly description?: string;
  /** Scenarios by name (lower-case letters, digits, dashes). */
  readonly scenarios: { readonly [name: string]: PlanScenarioInput };
  /** Thresholds of the whole run; `"<scenario>:<metric>"` judges one scenario. */
  readonly thresholds?: ScenarioInput['thresholds'];
  readonly seed?: number;
  readonly slo?: { readonly objective?: number };
}
