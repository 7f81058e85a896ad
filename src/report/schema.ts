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

const op: Schema = obj({ count, good: count, bad: count, excluded: count, statuses: countMap, errors: countMap, latencyMs: pct });

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
  { ttfbMs: pct, timeToEndMs: pct, unknownEvents: count, malformedEvents: count },
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
    }, { cancelled: count }),
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
  }),
};
