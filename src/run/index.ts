export { executeRun, type RunOptions, type RunOutcome } from './engine.js';
export { parseScenarioThresholds, type RunThresholds } from './thresholds.js';
export type { RunProgress } from './progress.js';
