/** The scenario format: define, load, validate and resolve scenarios; pick the traffic mix. */
export * from './types.js';
export { defineScenario } from './define.js';
export { loadScenarioFile, loadScenario } from './load-file.js';
export { resolveScenario } from './resolve.js';
export { DEFAULT_MAX_IN_FLIGHT, DEFAULT_GRACEFUL_STOP_MS } from '../load/index.js';
export { createMixPicker } from './mix-picker.js';
export * from './journey.js';
export * from './run-plan.js';
export { resolveRunPlan } from './resolve-plan.js';
export * from './data-schema.js';
export * from './data-source.js';
export * from './data-file.js';
export * from './tokenizer.js';
export * from './steps-schema.js';
export * from './steps.js';
export { scenarioJsonSchema } from './json-schema.js';
export { readInputFile } from './input-file.js';
