/** `defineScenario`: the typed entry point of `.ts` scenario files. */
import type { RunPlanInput } from './run-plan.js';
import type { ScenarioInput } from './types.js';

/**
 * Returns its argument unchanged; it exists so editors check a scenario file's fields as you
 * type (`export default defineScenario({ ... })`), for one scenario or for several that run at
 * once (`scenarios: { … }`). Validation happens when the file is loaded.
 */
export function defineScenario(scenario: ScenarioInput): ScenarioInput;
export function defineScenario(scenario: RunPlanInput): RunPlanInput;
export function defineScenario(scenario: ScenarioInput | RunPlanInput): ScenarioInput | RunPlanInput {
  return scenario;
}
