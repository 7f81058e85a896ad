/**
 * `flowgauge/report@1` as a zod schema: the one definition the reader validates with and the
 * JSON Schema is generated from (report-json-schema.ts). Every field report@1 always had (docs/report-json.md) is required;
 * fields this implementation added are optional, so other producers (merge, older writers)
 * stay valid. Every object is loose: @1 may grow fields and readers must ignore what they do
 * not know. Each section's zod piece lives in `sections/<name>-schema.ts` (its projection and
 * merge apart, in `sections/<name>.ts`); this file puts the pieces together.
 */
import { z } from 'zod';
import { asyncRunsSchema } from './sections/async-runs-schema.js';
import { auditSchema } from './sections/audit-schema.js';
import { checksSchema } from './sections/checks-schema.js';
import { violationSchema, violationTotalsSchema } from './sections/contract-violations-schema.js';
import { histogramsSchema } from './sections/histograms-schema.js';
import { iterationsSchema } from './sections/iterations-schema.js';
import { loadSchema } from './sections/load-schema.js';
import { notificationsSchema } from './sections/notifications-schema.js';
import { opsSchema } from './sections/ops-schema.js';
import { rateLimitSchema } from './sections/rate-limit-schema.js';
import { runSchema } from './sections/run-schema.js';
import { scenariosSchema } from './sections/scenarios-schema.js';
import { shardSchema, shardsSchema } from './sections/shards-schema.js';
import type { ScenarioReport } from './sections/scenarios-schema.js';
import { bool, obj, str, written, type DeepReadonly } from './sections/schema-kit.js';
import { sliceMsSchema, sliceSchema } from './sections/slices-schema.js';
import { sloSchema } from './sections/slo-schema.js';
import { stepsSchema } from './sections/steps-schema.js';
import { streamSchema } from './sections/stream-schema.js';
import { thresholdSchema, verdictSchema } from './sections/thresholds-schema.js';
import { warningsSchema } from './sections/warnings-schema.js';

/** The zod schema of report.json, version 1. */
export const reportSchema = obj(
  {
    ...runSchema,
    load: loadSchema,
    /** Operations that saw at least one request. */
    ops: opsSchema,
    stream: streamSchema,
    rateLimit: rateLimitSchema,
    slo: sloSchema,
    thresholds: z.array(thresholdSchema),
    /** Distinct violations, most frequent first (at most a few hundred; see `contractViolationTotals`). */
    contractViolations: z.array(violationSchema),
    /**
     * One entry per slice from the run's start, by intended start time: `{ t (s since start),
     * requests, good, bad, excluded, responses429, ops: { <op>: { count, latency } } }` where
     * `latency` is a serialised HDR histogram like those of `histograms`.
     */
    slices: z.array(sliceSchema),
    /**
     * Serialised HdrHistograms (compressed base64, values in µs; `stream.tokensPerS` in
     * milli-tokens per second) keyed `<op>.latency` and `stream.<timing>`. Merging the histograms
     * of several shards gives exact percentiles of the whole.
     */
    histograms: histogramsSchema,
  },
  {
    /** Added in @1: true when every threshold passed (true with no thresholds). */
    passed: written(bool),
    /** Added in @1: the abort-on-fail threshold metric that ended the run early, if one did. */
    abortedBy: str,
    /** Added in @1: every violation seen, and what the bounded list dropped. */
    contractViolationTotals: written(violationTotalsSchema),
    /** Added in @1: length of a slice in ms (1000 by default). */
    sliceMs: written(sliceMsSchema),
    /** Added in @1: notifications received during the run, when a receiver listened. */
    notifications: notificationsSchema,
    /** Added in @1: asynchronous runs and triggers followed to their end, when there were any. */
    asyncRuns: asyncRunsSchema,
    /** Added in @1: the service's own account of the run, compared with the client's. */
    audit: auditSchema,
    /** Added in @1: PASS, FAIL, INTERRUPTED (stopped by the user), ABORTED (by an abort-on-fail threshold) or PARTIAL (a merge lacking shards). */
    verdict: verdictSchema,
    /** Added in @1: journey iterations, when the run had journeys. */
    iterations: iterationsSchema,
    /** Added in @1: journey checks by name. */
    checks: checksSchema,
    /** Added in @1: latency of named journey steps. */
    steps: stepsSchema,
    scenarios: scenariosSchema,
    /** Added in @1: where the generator itself limited the load, and what to change. */
    warnings: warningsSchema,
    /** Added in @1: which shard of which run wrote this report (`run --shard i/N` or `--shards N`). */
    shard: shardSchema,
    /** Added in @1: a merge of shards' reports: the shards it holds and those it lacks (then incomplete, never a pass). */
    shards: shardsSchema,
  },
);

/**
 * The whole report, `flowgauge/report@1`, as this version writes it: the type of `reportSchema`
 * (fields it marks `written` required), with `scenarios` typed from the sections it repeats.
 */
export type Report = Omit<DeepReadonly<z.output<typeof reportSchema>>, 'scenarios'> & {
  /** Added in @1: each scenario of a run of several (the top level is the whole run). */
  readonly scenarios?: Readonly<Record<string, ScenarioReport>>;
};
