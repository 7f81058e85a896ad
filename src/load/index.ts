/** Executors: schedule calls of a job at intended instants on an injected clock. No HTTP here. */
export * from './types.js';
export { createExecutor } from './create-executor.js';
export { isClosedModel, loadDurationMs, meanTargetRatePerS, peakTargetRatePerS } from './load-info.js';
export { createRandom, createGammaSampler } from './prng.js';
export { createRampingSchedule } from './schedules.js';
export { createLagRecorder } from './lag-recorder.js';
