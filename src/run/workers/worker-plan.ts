/**
 * The plan as a worker thread gets it: resolved once in the main thread and sent as data, its
 * journeys (code, which a message cannot carry) left out and taken back in the worker from the
 * scenario file they came from.
 */
import { ConfigError } from '../../core/errors.js';
import { loadScenarioFile, planOf, resolveRunPlan, type Journey, type ResolvedRunPlan, type ResolvedScenario } from '../../scenario/index.js';
import type { WorkerInput } from './worker-protocol.js';

/** `plan` without its journeys, and where they are; throws `ConfigError` when a journey has no file to be loaded from. */
export function planForWorkers(plan: ResolvedRunPlan, env: Readonly<Record<string, string | undefined>>): Pick<WorkerInput, 'plan' | 'journeys'> {
  const names = plan.scenarios.filter((s) => s.journey !== undefined).map((s) => s.name);
  const file = plan.source ?? plan.scenarios.find((s) => s.source !== undefined)?.source;
  if (names.length > 0 && file === undefined) {
    throw new ConfigError(
      [{ path: 'workers', message: `scenario "${names[0]}" has a journey, which is code a worker thread can only load from the scenario's file: load it with loadScenario (or give it a source), or run with workers: 1` }],
      'run',
    );
  }
  const scenarios = plan.scenarios.map(({ journey: _journey, ...rest }) => rest);
  return { plan: { ...plan, scenarios }, journeys: names.length === 0 || file === undefined ? undefined : { file, env, names } };
}

/** The plan of a worker's input, its journeys loaded back from their file. */
export async function planInWorker(input: Pick<WorkerInput, 'plan' | 'journeys'>): Promise<ResolvedRunPlan> {
  const j = input.journeys;
  if (j === undefined) return input.plan;
  const loaded = planOf(resolveRunPlan(await loadScenarioFile(j.file, { env: j.env }), {}, { source: j.file }));
  const journeys = new Map<string, Journey | undefined>(loaded.scenarios.map((s) => [s.name, s.journey]));
  const scenarios = input.plan.scenarios.map((s): ResolvedScenario => {
    if (!j.names.includes(s.name)) return s;
    const journey = journeys.get(s.name);
    if (journey === undefined) throw new ConfigError([{ path: `scenarios.${s.name}`, message: `${j.file} no longer has its journey` }], 'run');
    return { ...s, journey };
  });
  return { ...input.plan, scenarios };
}
