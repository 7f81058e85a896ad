/** Executors: schedule calls of a job at intended instants on an injected clock. No HTTP here. */
export * from './types.js';
export { createExecutor, DEFAULT_SEED } from './create-executor.js';
export { isClosedModel, loadDurationMs, meanTargetRatePerS, peakTargetRatePerS } from './load-info.js';
export { createRandom, createGammaSampler, shardSeed, type Random } from './prng.js';
export {
  createConstantSchedule,
  createRampingSchedule,
  createGammaSchedule,
  type ArrivalSchedule,
} from './schedules.js';
export { createLagRecorder, type LagRecorder } from './lag-recorder.js';
