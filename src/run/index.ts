export { executeRun, type RunOptions, type RunOutcome } from './engine.js';
export { parsePlanThresholds } from './plan-thresholds.js';
export { mergeProgress, type RunProgress } from './progress.js';
export type { RunObserver, RunSample } from './observer.js';
export * from './observers/index.js';
export { runIdOfAck } from './run-ids.js';
export { createAsyncFollower, resolveFollowOptions, type FollowEndInfo, type FollowOptions } from './async-follow.js';
export { parseListenAddress, startNotificationTracking, type NotificationTracking } from './notifications.js';
export { auditUsage, createUsageLedger } from './audit.js';
