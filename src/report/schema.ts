/**
 * JSON Schema (draft-07) of `flowgauge/report@1`. Every field DESIGN names is required; fields
 * this implementation added are described but optional, so other producers (merge, older
 * writers) stay valid. Additional properties are allowed everywhere: @1 may grow fields and
 * readers must ignore what they do not know.
 */
import { OPS } from '../core/ops.js';
import { PCT_STATS } from '../slo/threshold-grammar.js';
import { COMPARATORS } from '../slo/threshold-grammar.js';

type Schema = Readonly<Record<string, unknown>>;

const num: Schema = { type: 'number' };
const count: Schema = { type: 'integer', minimum: 0 };
const ratio: Schema = { type: 'number', minimum: 0, maximum: 1 };
const str: Schema = { type: 'string' };
const nullable = (s: Schema): Schema => ({ anyOf: [s, { type: 'null' }] });
/** An object with `required` properties (DESIGN's names) and `optional` ones (additions). */
const obj = (required: Record<string, Schema>, optional: Record<string, Schema> = {}): Schema => ({
  type: 'object',
  required: Object.keys(required),
  properties: { ...required, ...optional },
});
const countMap: Schema = { type: 'object', additionalProperties: count };
const timestamp: Schema = { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d+)?Z$' };
/** HdrHistogram compressed base64 (`HISTFAAA…`). */
const hdr: Schema = { type: 'string', pattern: '^HISTF[A-Za-z0-9+/=]*$' };

const pct: Schema = obj(Object.fromEntries(PCT_STATS.map((s) => [s, s === 'count' ? count : { type: 'number', minimum: 0 }])));

const phases: Schema = obj({ blockedMs: pct, connectMs: pct, tlsMs: pct, waitMs: pct, receiveMs: pct });
const op: Schema = obj({ count, good: count, bad: count, excluded: count, statuses: countMap, errors: countMap, latencyMs: pct }, { phases });

const stream: Schema = obj(
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
    unknownEvents: count,
    malformedEvents: count,
    inputWords: pct,
    ttftByInputWords: { type: 'object', additionalProperties: pct },
  },
);

const rateLimit: Schema = obj(
  {
    advertisedLimit: nullable(count),
    resetSemantics: { enum: ['delta-seconds', 'epoch-seconds', 'unknown'] },
    responses429: count,
    expected429: count,
    premature429: count,
    headerViolations: countMap,
    windows: {
      type: 'array',
      items: obj({ reset: nullable(str), accepted: count, rejected: count }, { limit: nullable(count), minRemaining: nullable(count) }),
    },
  },
  {
    responses: count,
    windowsDropped: count,
    first429: nullable(obj({ index: count, atMs: num })),
    recoveryMs: nullable({ type: 'number', minimum: 0 }),
  },
);

const slo: Schema = obj(
  {
    objective: { type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 1 },
    good: count,
    bad: count,
    excluded: count,
    availability: nullable(ratio),
    errorBudgetConsumed: { type: 'number', minimum: 0 },
    burnRate: { type: 'number', minimum: 0 },
  },
  { errorRatio: ratio, allowedBadEvents: count },
);

const threshold: Schema = obj({
  metric: str,
  op: { enum: [...COMPARATORS] },
  value: num,
  observed: nullable(num),
  passed: { type: 'boolean' },
}, { implicit: { type: 'boolean' } });

/** `iterations` (journeys): how iterations ended, their duration from the intended start, the first failures. */
const iterations: Schema = obj({
  started: count,
  completed: count,
  failed: count,
  interrupted: count,
  dropped: count,
  durationMs: pct,
  errors: { type: 'array', items: obj({ message: str, count }) },
});

const violation: Schema = obj({ op: { enum: [...OPS] }, path: str, expected: str, got: str, count });

const slice: Schema = obj({
  t: { type: 'number', minimum: 0 },
  requests: count,
  good: count,
  bad: count,
  excluded: count,
  responses429: count,
  ops: {
    type: 'object',
    propertyNames: { enum: [...OPS] },
    additionalProperties: obj({ count, latency: hdr }),
  },
});

const int: Schema = { type: 'integer' };
const nullableNum: Schema = nullable(num);

const notifications: Schema = obj(
  {
    eventSet: { enum: ['flow.run', 'flow', 'mixed', 'none'] },
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
    graceMs: { type: 'number', minimum: 0 },
    triggers: obj({ accepted: count, matchedByRunId: count, matchedByFlowOrder: count, unresolved: count }),
  },
);

const followEnds = ['completed', 'failed', 'timeout', 'abandoned', 'error'] as const;
const asyncRuns: Schema = obj(
  {
    pollIntervalMs: { type: 'number', minimum: 0 },
    meanBiasMs: { type: 'number', minimum: 0 },
    followed: obj({ run: count, trigger: count }),
    final: obj(Object.fromEntries(followEnds.map((k) => [k, count]))),
    timeToCompletionMs: pct,
    pollsPerRun: obj({ runs: count, mean: { type: 'number', minimum: 0 }, max: count }),
    progress: obj(
      { min: nullableNum, max: nullableNum, monotonic: { type: 'boolean' }, decreases: count },
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

const usageCounts: Schema = obj({ totalRuns: count, successfulRuns: count, failedRuns: count, totalTokens: count });
const usageDiff: Schema = obj({ totalRuns: int, successfulRuns: int, failedRuns: int, totalTokens: int });
const usageAudit: Schema = obj(
  {
    window: obj({ start: str, end: str }),
    service: nullable(usageCounts),
    client: usageCounts,
    diff: nullable(usageDiff),
    exact: { type: 'boolean' },
  },
  {
    scope: { enum: ['per-flow', 'account'] },
    flows: { type: 'array', items: obj({ flowId: str, service: nullable(usageCounts), client: usageCounts, diff: nullable(usageDiff) }) },
    clientUnknown: obj({ runsWithoutTokens: count, unresolved: count }),
    errors: { type: 'array', items: str },
  },
);
const sessionAudit: Schema = obj(
  { sessions: count, runs: count, checked: count, inOrder: count, alternating: count, countMatches: count },
  {
    concurrent: count,
    problems: {
      type: 'array',
      items: obj({ sessionId: str, check: { enum: ['read', 'order', 'roles', 'count', 'timestamps', 'total'] }, expected: str, got: str }),
    },
  },
);

/** The JSON Schema of report.json, version 1. */
export const REPORT_JSON_SCHEMA: Schema = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  $id: 'https://flowgauge.dev/schemas/report-1.json',
  title: 'flowgauge report (flowgauge/report@1)',
  ...obj({
    schema: { const: 'flowgauge/report@1' },
    scenario: str,
    interrupted: { type: 'boolean' },
    target: obj({ baseUrl: str, embedded: { type: 'boolean' } }),
    startedAt: timestamp,
    endedAt: timestamp,
    durationS: { type: 'number', minimum: 0 },
    load: obj({
      executor: str,
      targetRatePerS: nullable({ type: 'number', minimum: 0 }),
      achievedRatePerS: { type: 'number', minimum: 0 },
      started: count,
      dropped: count,
      scheduleLagMs: pct,
    }, { cancelled: count, scheduleS: { type: 'number', minimum: 0 } }),
    ops: { type: 'object', propertyNames: { enum: [...OPS] }, additionalProperties: op },
    stream,
    rateLimit,
    slo,
    thresholds: { type: 'array', items: threshold },
    contractViolations: { type: 'array', items: violation },
    slices: { type: 'array', items: slice },
    histograms: { type: 'object', additionalProperties: hdr },
  }, {
    passed: { type: 'boolean' },
    abortedBy: str,
    contractViolationTotals: obj({ total: count, droppedDistinct: count, droppedCount: count }),
    sliceMs: { type: 'number', exclusiveMinimum: 0 },
    notifications,
    asyncRuns,
    audit: obj({}, { usage: usageAudit, sessions: sessionAudit, incomplete: { type: 'boolean' } }),
    verdict: { enum: ['PASS', 'FAIL', 'INTERRUPTED', 'ABORTED'] },
    iterations,
    checks: { type: 'object', additionalProperties: obj({ passes: count, fails: count }) },
    steps: { type: 'object', additionalProperties: pct },
    // Each scenario's sections have the top level's shapes (documented there, not again).
    scenarios: { type: 'object', additionalProperties: { type: 'object' } },
    warnings: { type: 'array', items: obj({ code: str, message: str }) },
  }),
};
