/**
 * `flowgauge/report@1` as a zod schema: the one definition the reader validates with and the
 * JSON Schema is generated from (report-json-schema.ts). Every field DESIGN names is required;
 * fields this implementation added are optional, so other producers (merge, older writers)
 * stay valid. Every object is loose: @1 may grow fields and readers must ignore what they do
 * not know.
 */
import { z } from 'zod';
import { PHASES } from '../collect/request-phases.js';
import { OPS } from '../core/ops.js';
import { COMPARATORS, PCT_STATS } from '../slo/threshold-grammar.js';
import { REPORT_SCHEMA } from './model.js';

type Shape = Record<string, z.ZodType>;
type Added<A extends Shape> = { [K in keyof A]: z.ZodOptional<A[K]> };

/**
 * A loose object whose `design` fields (DESIGN's names) are required and whose `added` ones
 * (this implementation's) are optional; kept apart so which is which reads off the call.
 */
function obj<D extends Shape, A extends Shape = Record<never, never>>(design: D, added?: A): z.ZodObject<D & Added<A>, z.core.$loose> {
  const optional = Object.fromEntries(Object.entries(added ?? {}).map(([k, s]) => [k, s.optional()]));
  return z.looseObject({ ...design, ...optional }) as z.ZodObject<D & Added<A>, z.core.$loose>;
}

/** One field per name, so key lists that exist as constants are not written out again. */
function keyed<K extends string, S extends z.ZodType>(keys: readonly K[], schema: S): Record<K, S> {
  return Object.fromEntries(keys.map((k) => [k, schema])) as Record<K, S>;
}

// A union rather than `.nullable()`: a wrong value then fails as a whole ("is not number or
// null") instead of as the inner kind alone, which reads as if null were not allowed.
const nullable = <S extends z.ZodType>(s: S) => z.union([s, z.null()]);

const num = z.number();
const nonNegative = z.number().min(0);
const int = z.int();
const count = z.int().min(0);
const ratio = z.number().min(0).max(1);
const str = z.string();
const bool = z.boolean();
const countMap = z.record(z.string(), count);
const timestamp = z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
/** HdrHistogram compressed base64 (`HISTFAAA…`). */
const hdr = z.string().regex(/^HISTF[A-Za-z0-9+/=]*$/);
/** Keyed by operation name; any other key is refused, naming the ones allowed. */
const byOp = <S extends z.ZodType>(value: S) =>
  z.partialRecord(z.enum(OPS), value, {
    // zod's type for a record's issues leaves out the one it raises for a key outside the enum.
    error: (iss) => ((iss.code as string) === 'unrecognized_keys' ? `unexpected key (allowed: ${OPS.join(', ')})` : undefined),
  });

const pct = obj({ ...keyed(PCT_STATS, nonNegative), count });

const phases = obj(keyed(PHASES.map((p) => `${p}Ms` as const), pct));
const op = obj({ count, good: count, bad: count, excluded: count, statuses: countMap, errors: countMap, latencyMs: pct }, { phases });

const stream = obj(
  {
    count,
    completed: count,
    incomplete: count,
    timeToStartMs: pct,
    ttftMs: pct,
    itlMs: pct,
    tpotMs: pct,
    tokensPerS: pct,
    tokens: count,
    tokenCountMismatches: count,
  },
  {
    ttfbMs: pct,
    timeToEndMs: pct,
    deliveredAtOnce: count,
    unknownEvents: count,
    malformedEvents: count,
    inputWords: pct,
    ttftByInputWords: z.record(z.string(), pct),
  },
);

const rateLimit = obj(
  {
    advertisedLimit: nullable(count),
    resetSemantics: z.enum(['delta-seconds', 'epoch-seconds', 'unknown']),
    responses429: count,
    expected429: count,
    premature429: count,
    headerViolations: countMap,
    windows: z.array(obj({ reset: nullable(str), accepted: count, rejected: count }, { limit: nullable(count), minRemaining: nullable(count) })),
  },
  {
    responses: count,
    headerless429: count,
    uncertain429: count,
    rolling: bool,
    latencyMs: pct,
    windowsDropped: count,
    first429: nullable(obj({ index: count, atMs: num })),
    recoveryMs: nullable(nonNegative),
  },
);

const slo = obj(
  {
    objective: z.number().gt(0).lt(1),
    good: count,
    bad: count,
    excluded: count,
    availability: nullable(ratio),
    errorBudgetConsumed: nonNegative,
    burnRate: nonNegative,
  },
  { errorRatio: ratio, allowedBadEvents: count },
);

const threshold = obj({ metric: str, op: z.enum(COMPARATORS), value: num, observed: nullable(num), passed: bool }, { implicit: bool });

/** `iterations` (journeys): how iterations ended, their duration from the intended start, the first failures. */
const iterations = obj(
  {
    started: count,
    completed: count,
    failed: count,
    interrupted: count,
    dropped: count,
    durationMs: pct,
    errors: z.array(obj({ message: str, count })),
  },
  { otherErrors: count },
);

const violation = obj({ op: z.enum(OPS), path: str, expected: str, got: str, count });

const slice = obj({
  t: nonNegative,
  requests: count,
  good: count,
  bad: count,
  excluded: count,
  responses429: count,
  ops: byOp(obj({ count, latency: hdr })),
});

const notifications = obj(
  {
    eventSet: z.enum(['flow.run', 'flow', 'mixed', 'none']),
    events: countMap,
    received: count,
    expected: count,
    matched: count,
    missing: count,
    duplicate: count,
    outOfOrder: count,
    deliveryLatencyMs: pct,
    rejected: countMap,
  },
  {
    requests: count,
    beforeRun: count,
    late: count,
    awaiting: count,
    statusMismatch: count,
    unsolicited: count,
    sessionEvents: count,
    unknownEvents: count,
    beforeClient: count,
    leadMs: pct,
    graceMs: nonNegative,
    triggers: obj({ accepted: count, matchedByRunId: count, matchedByFlowOrder: count, unresolved: count }),
  },
);

const nullableNum = nullable(num);
const asyncRuns = obj(
  {
    pollIntervalMs: nonNegative,
    meanBiasMs: nonNegative,
    followed: obj({ run: count, trigger: count }),
    final: obj(keyed(['completed', 'failed', 'timeout', 'abandoned', 'error'] as const, count)),
    timeToCompletionMs: pct,
    pollsPerRun: obj({ runs: count, mean: nonNegative, max: count }),
    progress: obj(
      { min: nullableNum, max: nullableNum, monotonic: bool, decreases: count },
      {
        values: count,
        atCompletion: obj({ min: nullableNum, max: nullableNum }),
        outside0to100: count,
        nonInteger: count,
        missing: count,
        runsWithDecrease: count,
      },
    ),
  },
  {
    notFollowed: obj({ cap: count, stopped: count }),
    active: count,
    polls: obj({ total: count, statuses: countMap, errors: countMap }),
    triggers: obj({ completedByPolling: count, completedByNotification: count, timeToCompletionMs: pct }),
  },
);

const usageCounts = obj({ totalRuns: count, successfulRuns: count, failedRuns: count, totalTokens: count });
const usageDiff = obj({ totalRuns: int, successfulRuns: int, failedRuns: int, totalTokens: int });
const usageAudit = obj(
  {
    window: obj({ start: str, end: str }),
    service: nullable(usageCounts),
    client: usageCounts,
    diff: nullable(usageDiff),
    exact: bool,
  },
  {
    scope: z.enum(['per-flow', 'account']),
    flows: z.array(obj({ flowId: str, service: nullable(usageCounts), client: usageCounts, diff: nullable(usageDiff) })),
    clientUnknown: obj({ runsWithoutTokens: count, unresolved: count }),
    errors: z.array(str),
    filterIgnored: bool,
    forbidden: bool,
  },
);
const sessionAudit = obj(
  { sessions: count, runs: count, checked: count, inOrder: count, alternating: count, countMatches: count },
  {
    concurrent: count,
    problems: z.array(obj({ sessionId: str, check: z.enum(['read', 'order', 'roles', 'count', 'timestamps', 'total']), expected: str, got: str })),
  },
);

/** The zod schema of report.json, version 1. */
export const reportSchema = obj(
  {
    schema: z.literal(REPORT_SCHEMA),
    scenario: str,
    interrupted: bool,
    target: obj({ baseUrl: str, embedded: bool }),
    startedAt: timestamp,
    endedAt: timestamp,
    durationS: nonNegative,
    load: obj(
      {
        executor: str,
        targetRatePerS: nullable(nonNegative),
        achievedRatePerS: nonNegative,
        started: count,
        dropped: count,
        scheduleLagMs: pct,
      },
      { cancelled: count, cut: count, gracefulStopS: nonNegative, scheduleS: nonNegative, workers: z.int().min(1) },
    ),
    ops: byOp(op),
    stream,
    rateLimit,
    slo,
    thresholds: z.array(threshold),
    contractViolations: z.array(violation),
    slices: z.array(slice),
    histograms: z.record(z.string(), hdr),
  },
  {
    passed: bool,
    abortedBy: str,
    contractViolationTotals: obj({ total: count, droppedDistinct: count, droppedCount: count }),
    sliceMs: z.number().gt(0),
    notifications,
    asyncRuns,
    audit: obj({}, { usage: usageAudit, sessions: sessionAudit, tenants: z.array(obj({ scenarios: z.array(str) }, { usage: usageAudit, sessions: sessionAudit })), incomplete: bool }),
    verdict: z.enum(['PASS', 'FAIL', 'INTERRUPTED', 'ABORTED']),
    iterations,
    checks: z.record(z.string(), obj({ passes: count, fails: count }, { examples: z.array(obj({ expected: str, actual: str })) })),
    steps: z.record(z.string(), pct),
    // Each scenario's sections have the top level's shapes (documented there, not again).
    scenarios: z.record(z.string(), z.record(z.string(), z.unknown())),
    warnings: z.array(obj({ code: str, message: str })),
  },
);
