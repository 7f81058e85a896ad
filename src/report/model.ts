/**
 * The report model, `flowgauge/report@1`: a contract other tools read (DESIGN "Contracts").
 * Field names here are fixed; fields may be added, never renamed. Times in ms, rates per
 * second, ratios 0–1. Each type is taken from its section's zod schema (`sections/<section>.ts`,
 * `z.output`, readonly at every depth), where its fields are documented; this file only gathers
 * them under the names the rest of flowgauge imports.
 */
export { REPORT_SCHEMA } from './sections/run.js';
export type { Report } from './report-schema.js';
export type { AsyncRunsReport } from './sections/async-runs.js';
export type { AuditReport, SessionAuditReport, SessionProblem, TenantAuditReport, UsageAuditReport, UsageCounts, UsageFlowAudit } from './sections/audit.js';
export type { ChecksReport } from './sections/checks.js';
export type { IterationsReport } from './sections/iterations.js';
export type { LoadReport } from './sections/load.js';
export type { NotificationsReport } from './sections/notifications.js';
export type { OpReport } from './sections/ops.js';
export type { RateLimitReport } from './sections/rate-limit.js';
export type { ScenarioReport } from './sections/scenarios.js';
export type { SloReport } from './sections/slo.js';
export type { StreamReport } from './sections/stream.js';
export type { RunWarning } from './sections/warnings.js';
