export { executeRun, type RunOptions, type RunOutcome } from './engine.js';
export { parseScenarioThresholds, type RunThresholds } from './thresholds.js';
export type { RunProgress } from './progress.js';
export { createAsyncFollower, resolveFollowOptions, type AsyncFollower, type AsyncFollowerDeps, type FollowEndInfo, type FollowOptions, type FollowTarget, type ResolvedFollowOptions } from './async-follow.js';
export { parseListenAddress, startNotificationTracking, type NotificationMetricsSink, type NotificationTracking, type NotificationTrackingOptions } from './notifications.js';
export { auditSessions, auditUsage, createUsageLedger, sessionBaseline, type AuditContext, type SessionRun, type UsageLedger } from './audit.js';
export { createRunExtras, runIdOfAck, type ExtraSections, type ExtrasResult, type RunExtras, type RunExtrasOptions } from './run-extras.js';
