/**
 * flowgauge as a library: what a user needs to write scenarios, drive the client, run a load
 * test, read reports and probe a service. Everything else is internal and may change; this
 * list is locked by test/package/public-api.test.ts and documented in docs/api.md.
 */

// Scenarios: the format, its resolution, journeys.
export { defineScenario, loadScenario, loadScenarioFile, resolveRunPlan, resolveScenario } from './scenario/index.js';
export type {
  DataInput,
  DataRow,
  DurationInput,
  Journey,
  LoadInput,
  MixEntryInput,
  RateInput,
  ResolvedRunPlan,
  ResolvedScenario,
  RunPlanInput,
  ScenarioInput,
  ScenarioOverrides,
  StepInput,
  ThresholdInput,
  Vu,
} from './scenario/index.js';

// The client of the Workflow Execution Service.
export { ApiError, createClient, TransportError } from './api/index.js';
export type { ApiResult, CallOptions, Client, ClientOptions, StreamCallOptions, StreamResult, StreamSummary, TimedStreamEvent } from './api/index.js';
export type { ErrorCode } from './core/codes.js';

// Running a load test.
export { executeRun } from './run/index.js';
export type { RunObserver, RunOptions, RunOutcome, RunProgress, RunSample } from './run/index.js';

// Reports: report@1, its schema, merging, comparing, rendering.
export { compareReports, mergeReports, renderHtml, renderMarkdown, renderSummary, REPORT_JSON_SCHEMA } from './report/index.js';
export type { Report, RunVerdict } from './report/index.js';

// Probes (uptime) and the embedded reference service.
export { createProbeRunner } from './probe/index.js';
export type { ProbeOptions, ProbeRecord, ProbeRunner } from './probe/index.js';
export { startReferenceService } from './target/index.js';
export type { ReferenceService, ReferenceServiceOptions } from './target/index.js';
