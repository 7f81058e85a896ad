/** `defineScenario`: the typed entry point of `.ts` scenario files. */
import type { ScenarioInput } from './types.js';

/**
 * Returns its argument unchanged; it exists so editors check a scenario file's fields as you
 * type (`export default defineScenario({ ... })`). Validation happens in `resolveScenario`.
 */
export function defineScenario(scenario: ScenarioInput): ScenarioInput {
  return scenario;
}
