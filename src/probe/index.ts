/** Scheduled uptime probes: checks timed at the socket, durable history, incidents, uptime and SLO status. */
export * from './record.js';
export { timedRequest, phasesOf, type TimedRequestOptions, type TimedResponse, type RequestInstants, type TlsDetails, type TlsSettings } from './http-timing.js';
export {
  runCheck,
  discoverFlow,
  FOREIGN_ANSWER,
  PROBE_INPUT,
  type CheckContext,
  type CheckOutcome,
  type CheckRequest,
  type FlowLookup,
} from './checks.js';
export { utcDay, historyFileName, listHistoryFiles, filesInRange, pruneHistory, type HistoryFile } from './history-files.js';
export { openHistoryWriter, repairTail, type HistoryWriter, type HistoryWriterOptions, type AppendResult } from './history-writer.js';
export {
  foldHistory,
  readHistory,
  parseHistoryText,
  DEFAULT_READ_LIMIT,
  MAX_HISTORY_LINE,
  type HistoryRange,
  type HistoryRead,
  type HistoryScan,
} from './history-reader.js';
export { createResumeFold, readProbeResume, type FailureRun, type ProbeResume, type ResumeFold } from './resume.js';
export { OVERALL, seriesByCheck, overallSeries, type OutcomePoint } from './series.js';
export { createSeriesStream, type SeriesSink, type SeriesStream, type SeriesStreamOptions } from './series-stream.js';
export { createReorderBuffer, DEFAULT_REORDER_CAPACITY, type ReorderBuffer } from './reorder.js';
export {
  RTO_MS,
  DEFAULT_FAILURES_TO_OPEN,
  createIncidentTracker,
  detectIncidents,
  type Incident,
  type IncidentEvent,
  type IncidentOptions,
  type IncidentSummary,
  type IncidentTracker,
} from './incidents.js';
export { computeUptime, createUptimeAccumulator, uptimeBudget, type TimeWindow, type Uptime, type UptimeAccumulator, type UptimeBudget } from './uptime.js';
export { createProbeScheduler, type ProbeScheduler, type ProbeSchedulerOptions } from './scheduler.js';
export { resolveProbeOptions, DEFAULT_CERT_MIN_DAYS, type ProbeOptions, type ProbeTarget, type ResolvedProbeOptions } from './options.js';
export { createProbeRunner, type ProbeRunner, type ProbeRunnerStats, type RoundResult } from './runner.js';
export {
  SLO_STATUS_SCHEMA,
  buildSloStatus,
  createSloStatusFold,
  type SloStatusFold,
  type SloStatus,
  type SloStatusOptions,
  type SeriesStatus,
  type IncidentStatus,
  type TlsStatus,
  type HistoryStats,
} from './status.js';
export { renderStatusText, formatPercent, formatMinutes, formatWindow, verdictOf, describeTls } from './status-text.js';
export { renderStatusHtml } from './status-html.js';
export { deriveOnceInterval, MIN_DERIVED_INTERVAL_MS, MAX_DERIVED_INTERVAL_MS, type DerivedInterval } from './once-interval.js';
export { MAX_LISTED_INCIDENTS } from './status-series.js';
export {
  buildTimeline,
  bucketOutcomes,
  createTimelineAccumulator,
  timelineOf,
  TIMELINE_BUCKETS,
  TIMELINE_RESOLUTION,
  type Timeline,
  type TimelineTrack,
  type TimelineAccumulator,
  type TimelineRow,
  type TimelineCell,
  type CellOutcome,
} from './timeline.js';
export { probeResultOf } from './probe-result.js';
export { readProbeTotals, TOTALS_CHECKPOINT, SETTLE_MS, type TotalsRead } from './totals.js';
