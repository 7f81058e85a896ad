/**
 * `flowgauge/report@1` as a zod schema: the one definition the reader validates with and the
 * JSON Schema is generated from (report-json-schema.ts). Every field DESIGN names is required;
 * fields this implementation added are optional, so other producers (merge, older writers)
 * stay valid. Every object is loose: @1 may grow fields and readers must ignore what they do
 * not know. Each section's piece lives with its merge in `sections/<section>.ts`; this file
 * puts them together.
 */
import { z } from 'zod';
import { asyncRunsSchema } from './sections/async-runs.js';
import { auditSchema } from './sections/audit.js';
import { checksSchema } from './sections/checks.js';
import { violationSchema, violationTotalsSchema } from './sections/contract-violations.js';
import { histogramsSchema } from './sections/histograms.js';
import { iterationsSchema } from './sections/iterations.js';
import { loadSchema } from './sections/load.js';
import { notificationsSchema } from './sections/notifications.js';
import { opsSchema } from './sections/ops.js';
import { rateLimitSchema } from './sections/rate-limit.js';
import { runSchema } from './sections/run.js';
import { scenariosSchema } from './sections/scenarios.js';
import { bool, obj, str } from './sections/schema-kit.js';
import { sliceMsSchema, sliceSchema } from './sections/slices.js';
import { sloSchema } from './sections/slo.js';
import { stepsSchema } from './sections/steps.js';
import { streamSchema } from './sections/stream.js';
import { thresholdSchema, verdictSchema } from './sections/thresholds.js';
import { warningsSchema } from './sections/warnings.js';

/** The zod schema of report.json, version 1. */
export const reportSchema = obj(
  {
    ...runSchema,
    load: loadSchema,
    ops: opsSchema,
    stream: streamSchema,
    rateLimit: rateLimitSchema,
    slo: sloSchema,
    thresholds: z.array(thresholdSchema),
    contractViolations: z.array(violationSchema),
    slices: z.array(sliceSchema),
    histograms: histogramsSchema,
  },
  {
    passed: bool,
    abortedBy: str,
    contractViolationTotals: violationTotalsSchema,
    sliceMs: sliceMsSchema,
    notifications: notificationsSchema,
    asyncRuns: asyncRunsSchema,
    audit: auditSchema,
    verdict: verdictSchema,
    iterations: iterationsSchema,
    checks: checksSchema,
    steps: stepsSchema,
    scenarios: scenariosSchema,
    warnings: warningsSchema,
  },
);
