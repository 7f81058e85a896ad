/**
 * flowgauge as a library: what a user needs to write scenarios, drive the client, run a load
 * test, read reports and probe a service. Everything else is internal and may change; this
 * list is locked by test/package/public-api.test.ts and documented in docs/api.md. The
 * subpaths (`flowgauge/client`, `/scenario`, `/report`, `/reference-service`) are slices of it.
 */
export * from './index-scenario.js';
export * from './index-client.js';
export * from './index-report.js';
export * from './index-reference-service.js';

// Running a load test (in this thread or split over worker threads).
export { executeRun } from './run/index.js';
export type { RunOptions, RunOutcome, RunOutput, RunPhase, RunProgress, RunSample, WorkerSetup } from './run/index.js';

// Probes (uptime checks with records and incidents).
export { createProbeRunner } from './probe/index.js';
export type { ProbeOptions, ProbeRecord, ProbeRunner } from './probe/index.js';
