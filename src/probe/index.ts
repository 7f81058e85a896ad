/** Scheduled uptime probes: checks timed at the socket, durable history, incidents, uptime and SLO status. */
export * from './record.js';
export { timedRequest, phasesOf, type TimedResponse } from './http-timing.js';
export {
  runCheck,
  FOREIGN_ANSWER,
  type CheckContext,
  type CheckRequest,
} from './checks.js';
export { utcDay, historyFileName, pruneHistory } from './history-files.js';
export { openHistoryWriter } from './history-writer.js';
export {
  foldHistory,
  readHistory,
  parseHistoryText,
  MAX_HISTORY_LINE,
} from './history-reader.js';
export { readProbeResume } from './resume.js';
export { seriesByCheck, overallSeries, type OutcomePoint } from './series.js';
export { createSeriesStream } from './series-stream.js';
export { createReorderBuffer, DEFAULT_REORDER_CAPACITY } from './reorder.js';
export {
  RTO_MS,
  createIncidentTracker,
  detectIncidents,
  type IncidentEvent,
} from './incidents.js';
export { computeUptime, uptimeBudget } from './uptime.js';
export { createProbeScheduler } from './scheduler.js';
export { DEFAULT_CERT_MIN_DAYS, type ProbeOptions } from './options.js';
export { createProbeRunner, type ProbeRunner } from './runner.js';
export {
  SLO_STATUS_SCHEMA,
  buildSloStatus,
  createSloStatusFold,
  type SloStatus,
} from './status.js';
export { createTargetedStatusFold, readSloStatus, MAX_STATUS_TARGETS } from './status-targets.js';
export { renderStatusText, formatWindow } from './status-text.js';
export { renderStatusHtml } from './status-html.js';
export { deriveOnceInterval, MAX_DERIVED_INTERVAL_MS } from './once-interval.js';
export { onceVerdict } from './once-verdict.js';
export { MAX_LISTED_INCIDENTS } from './status-series.js';
export { TIMELINE_BUCKETS } from './timeline.js';
export { probeResultOf } from './probe-result.js';
export { readProbeTotals, TOTALS_CHECKPOINT, SETTLE_MS } from './totals.js';
