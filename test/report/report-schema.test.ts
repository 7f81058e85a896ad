/**
 * report@1 is defined once, in zod (src/report/report-schema.ts), and its JSON Schema is
 * generated from it. No schema file is published: `flowgauge schema report` prints it, so that
 * output is what is checked against the generator. Real reports pass both the zod schema and
 * the generated JSON Schema, and both refuse the same broken ones.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { reportProblems } from '../../src/report/read.js';
import { REPORT_JSON_SCHEMA, reportJsonSchema } from '../../src/report/report-json-schema.js';
import { reportSchema } from '../../src/report/report-schema.js';
import { runWithReceiver } from '../notifications/helpers.js';
import { fixtureReport } from './fixture.js';
import { stepsJourneyYaml } from './steps-journey.js';

type Json = Record<string, any>;

const validate = new Ajv({ allErrors: true, strict: true }).compile(REPORT_JSON_SCHEMA);

const dir = mkdtempSync(join(tmpdir(), 'fg-report-schema-'));
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A report as a reader sees it: the JSON text parsed back. */
const asRead = (report: unknown): Json => JSON.parse(JSON.stringify(report)) as Json;

/** Reports of real runs: the fixture, a journey with checks and steps, a run with notifications, following and the audit. */
const reports: Record<string, Json> = {};
beforeAll(async () => {
  reports.fixture = asRead(fixtureReport());

  const file = join(dir, 'journey.yaml');
  writeFileSync(
    file,
    stepsJourneyYaml('schema-journey', '500ms'),
  );
  const out = join(dir, 'journey');
  const io = memoryIo({ cwd: dir, env: {} });
  expect(await main(['run', file, '--out', out, '--quiet'], io), io.err()).toBe(0);
  reports.journey = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as Json;

  const run = await runWithReceiver(
    {
      name: 'schema-async',
      tier: 'pro',
      load: { executor: 'constant-arrival-rate', rate: '40/s', duration: '500ms' },
      mix: [{ op: 'run', weight: 2 }, { op: 'stream', weight: 1 }, { op: 'trigger', weight: 1 }],
    },
    { service: { runMode: 'async', latency: { ttftMs: 5, itlMs: 1, jitter: 0, tokens: { min: 2, max: 4 }, runOverheadMs: 1 } }, run: { audit: true, follow: { pollIntervalMs: 15 } } },
  );
  cleanups.push(run.close);
  reports.async = asRead(run.outcome.report);
}, 60_000);

describe('the report@1 JSON Schema', () => {
  it('is what `flowgauge schema report` prints, byte for byte, and what REPORT_JSON_SCHEMA holds', async () => {
    const io = memoryIo({ cwd: dir });
    expect(await main(['schema', 'report'], io)).toBe(0);
    const generated = `${JSON.stringify(reportJsonSchema(), null, 2)}\n`;
    expect(io.out(), '`flowgauge schema report` must print the schema generated from src/report/report-schema.ts (reportJsonSchema)').toBe(generated);
    expect(REPORT_JSON_SCHEMA).toEqual(reportJsonSchema());
  });

  it('is draft-07 with the report@1 identity', () => {
    expect(REPORT_JSON_SCHEMA).toMatchObject({
      $schema: 'http://json-schema.org/draft-07/schema#',
      $id: 'https://flowgauge.dev/schemas/report-1.json',
      type: 'object',
      properties: { schema: { const: 'flowgauge/report@1' } },
    });
  });
});

describe('real reports', () => {
  it('carry every section the schema describes between them', () => {
    expect(reports.journey).toMatchObject({ iterations: expect.any(Object), checks: expect.any(Object), steps: expect.any(Object) });
    expect(reports.async).toMatchObject({ notifications: expect.any(Object), asyncRuns: expect.any(Object), audit: expect.any(Object) });
  });

  it.each(['fixture', 'journey', 'async'])('%s: valid against the zod schema and the generated JSON Schema', (name) => {
    const report = reports[name] as Json;
    expect(reportSchema.safeParse(report).error?.issues ?? []).toEqual([]);
    validate(report);
    expect(validate.errors ?? []).toEqual([]);
    expect(reportProblems(report)).toEqual([]);
  });
});

describe('broken reports', () => {
  /** Each breaks one rule; the pattern is the one problem the reader must report, naming the field. */
  const breakages: [string, (r: Json) => unknown, RegExp][] = [
    ['a DESIGN field missing at the top', (r) => delete r.slo, /^\(root\): missing slo$/],
    ['a DESIGN field missing inside', (r) => delete r.rateLimit.premature429, /^rateLimit: missing premature429$/],
    ['a nullable DESIGN field missing', (r) => delete r.slo.availability, /^slo: missing availability$/],
    ['an operation without its latency', (r) => delete r.ops.run.latencyMs, /^ops\.run: missing latencyMs$/],
    ['a count of -1', (r) => (r.ops.run.count = -1), /^ops\.run\.count: -1 is below 0$/],
    ['a count of -1 in a slice', (r) => (r.slices[0].requests = -1), /^slices\[0\]\.requests: -1 is below 0$/],
    ['a count of -1 in a map', (r) => (r.ops.run.statuses['200'] = -1), /^ops\.run\.statuses\.200: -1 is below 0$/],
    ['a fractional count', (r) => (r.load.started = 1.5), /^load\.started: expected integer, got 1\.5$/],
    ['a ratio above 1', (r) => (r.slo.availability = 1.5), /^slo\.availability: 1\.5 is above 1$/],
    ['a string where a number or null goes', (r) => (r.slo.availability = 'high'), /^slo\.availability: "high" is not number or null$/],
    ['an unknown operation', (r) => (r.ops.fly = r.ops.run), /^ops\.fly: unexpected key \(allowed: run, stream/],
    ['a timestamp in another format', (r) => (r.startedAt = '2026-01-01 12:00'), /^startedAt: "2026-01-01 12:00" is not in the expected format$/],
    ['a histogram that is not HDR', (r) => (r.histograms['run.latency'] = 'not a histogram'), /^histograms\.run\.latency: "not a histogram" is not in the expected format$/],
    ['an unknown comparator', (r) => (r.thresholds = [{ metric: 'availability', op: '=>', value: 1, observed: null, passed: false }]), /^thresholds\[0\]\.op: "=>" is not one of/],
    ['an added field of the wrong type', (r) => (r.rateLimit.first429 = { index: 'one', atMs: 1 }), /^rateLimit\.first429\.index: expected number, got "one"$/],
  ];

  it.each(breakages)('%s: refused by both, the reader naming the field', (_what, breakIt, problem) => {
    const r = structuredClone(reports.fixture) as Json;
    breakIt(r);
    expect(reportSchema.safeParse(r).success).toBe(false);
    expect(validate(r)).toBe(false);
    expect(reportProblems(r)).toEqual([expect.stringMatching(problem)]);
  });

  it("accepts, in both, a report without this implementation's additions and with fields it does not know", () => {
    const r = structuredClone(reports.fixture) as Json;
    for (const k of ['passed', 'contractViolationTotals', 'sliceMs', 'verdict']) delete r[k];
    for (const k of ['first429', 'recoveryMs', 'responses', 'windowsDropped']) delete r.rateLimit[k];
    for (const k of ['errorRatio', 'allowedBadEvents']) delete r.slo[k];
    for (const w of r.rateLimit.windows as Json[]) delete w.limit;
    r.futureSection = { anything: [1, 2] };
    r.slo.futureField = 'x';
    expect(reportSchema.safeParse(r).success).toBe(true);
    expect(validate(r)).toBe(true);
  });
});
