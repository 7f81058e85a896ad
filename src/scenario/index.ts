/** The scenario format: define, load, validate and resolve scenarios; pick the traffic mix. */
export * from './types.js';
export { defineScenario } from './define.js';
export { loadScenarioFile, loadScenario, SCENARIO_EXTENSIONS, type LoadFileOptions } from './load-file.js';
export { fillEnvVars } from './env-vars.js';
export { resolveScenario, type ResolveOptions } from './resolve.js';
export { DEFAULT_MAX_IN_FLIGHT, DEFAULT_GRACEFUL_STOP_MS, DEFAULT_BURSTINESS } from './resolve-load.js';
export { createMixPicker } from './mix-picker.js';
export { formatPath } from './issues.js';
export { MAX_DURATION_MS } from './schema.js';
export * from './journey.js';
export * from './run-plan.js';
export { resolveRunPlan, isPlanInput } from './resolve-plan.js';
export * from './data-schema.js';
export * from './data-source.js';
export * from './data-file.js';
export * from './steps-schema.js';
export * from './steps.js';
export { scenarioJsonSchema } from './json-schema.js';
