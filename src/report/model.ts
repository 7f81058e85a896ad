/**
 * The report model, `flowgauge/report@1`: a contract other tools read (docs/report-json.md).
 * Field names here are fixed; fields may be added, never renamed. Times in ms, rates per
 * second, ratios 0–1. Each type is taken from its section's zod schema
 * (`sections/<section>-schema.ts`, `z.output`, readonly at every depth), where its fields are
 * documented; this file only gathers them under the names the rest of flowgauge imports.
 */
export { REPORT_SCHEMA } from './sections/run-schema.js';
export type { Report } from './report-schema.js';
export type { AsyncRunsReport } from './sections/async-runs-schema.js';
export type { AuditReport, SessionAuditReport, SessionProblem, TenantAuditReport, UsageAuditReport, UsageCounts, UsageFlowAudit } from './sections/audit-schema.js';
export type { NotificationsReport } from './sections/notifications-schema.js';
export type { RateLimitReport } from './sections/rate-limit-schema.js';
export type { ScenarioReport } from './sections/scenarios-schema.js';
export type { StreamReport } from './sections/stream-schema.js';
export type { RunWarning } from './sections/warnings-schema.js';
export type { ShardReport } from './sections/shards-schema.js';
