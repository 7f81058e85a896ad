/** Executors: schedule calls of a job at intended instants on an injected clock. No HTTP here. */
export * from './types.js';
export { createExecutor } from './create-executor.js';
export { DEFAULT_EXECUTOR, EXECUTORS, loadSchema, resolveLoad, type LoadInput, type ResolvedLoad } from './executor-registry.js';
export { DEFAULT_GRACEFUL_STOP_MS, DEFAULT_MAX_IN_FLIGHT, MAX_IN_FLIGHT, type LoadOverrides } from './executor-kit.js';
export { isClosedModel, loadDurationMs, meanTargetRatePerS, peakTargetRatePerS, shownLength } from './load-info.js';
export { createRandom, createGammaSampler } from './prng.js';
export { createRampingSchedule } from './schedules.js';
export { createLagRecorder } from './lag-recorder.js';
