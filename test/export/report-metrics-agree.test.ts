/**
 * report.json and /metrics agree on every count. Each shipped scenario (`scenarios/`) runs for
 * 2 s through the CLI (`main`, as `flowgauge run` does) against a reference service whose
 * limiter refuses much of the load (2 s windows, small limits, a limiter that admits fewer than it
 * advertises so some 429s are premature), with failed and truncated streams; the run's final
 * metrics are taken from its last Pushgateway push (the registry's exposition) and every counter
 * and histogram `_count` is compared with the report's figure of the same population. The
 * scenarios run a few at a time (each with its own service and Pushgateway), since each mostly
 * waits on its 2 s schedule and its journeys' think time.
 *
 * Then the case issue 27 found against a limiter whose truth is known: limit 10 per 2 s, every
 * served run 100 ms, threshold `run.latency.p50 < 50ms` must fail with p50 ≈ 100 ms, and the
 * 429s are counted apart (`rateLimit.latencyMs`, `flowgauge_rate_limited_duration_seconds`).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { OPS } from '../../src/core/ops.js';
import { loadScenarioFile, planOf, resolveRunPlan } from '../../src/scenario/index.js';
import { reportMetric, type Report, type ScenarioReport } from '../../src/report/index.js';
import { RUN_METRICS, JOURNEY_METRICS } from '../../src/slo/metric-names.js';
import { startReferenceService, type ReferenceServiceOptions } from '../../src/target/index.js';
import { parseExposition, sumOf, type Series } from './helpers/exposition.js';

const FREE = 'fg_free_demo';
const PRO = 'fg_pro_demo';
const SCENARIOS = readdirSync('scenarios').filter((f) => /\.(ts|yaml|json)$/.test(f)).sort();

let dir = '';
/** `process.exit` as the test process has it: each run swaps in its own guard (see afterAll). */
let realExit: typeof process.exit;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'fg-agree-'));
  realExit = process.exit;
});

afterAll(() => {
  // Runs side by side swap process.exit for their exit guard and restore it in their own order,
  // not always the reverse of the order they took it in: the test process gets its own back.
  process.exit = realExit;
  if (dir !== '') rmSync(dir, { recursive: true, force: true });
});

/** A Pushgateway that keeps what it is sent (one per run: runs go side by side): the run's last push is its final exposition. */
async function startSink(): Promise<{ url: string; pushes: { url: string; body: string }[]; close: () => Promise<void> }> {
  const pushes: { url: string; body: string }[] = [];
  const sink: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      if (req.method === 'PUT') pushes.push({ url: req.url ?? '', body });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => sink.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(sink.address() as { port: number }).port}`,
    pushes,
    close: () => new Promise<void>((r) => sink.close(() => r())),
  };
}

/** Runs `scenario` through the CLI against a fresh service; its report and final metrics. */
async function runOnce(
  name: string,
  scenario: string,
  service: ReferenceServiceOptions,
  extra: readonly string[] = [],
): Promise<{ code: number; report: Report; series: Series[] }> {
  const target = await startReferenceService(service);
  const sink = await startSink();
  try {
    const out = join(dir, name);
    const io = memoryIo({ cwd: process.cwd(), env: { FREE_TOKEN: FREE, PRO_TOKEN: PRO } });
    // A free-tier scenario sends with the free token; tenants name theirs (FREE_TOKEN, PRO_TOKEN).
    const plan = planOf(resolveRunPlan(await loadScenarioFile(scenario), {}, { source: scenario }));
    const token = plan.scenarios.length === 1 && plan.scenarios[0]?.tier === 'free' ? FREE : PRO;
    const code = await main(['run', scenario, '--base-url', target.baseUrl, '--token', token, '--out', out, '--quiet', '--pushgateway', sink.url, ...extra], io);
    if (code !== 0 && code !== 1) throw new Error(`${name}: exit ${code}: ${io.err()}`);
    const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as Report;
    const last = sink.pushes.filter((p) => p.url.startsWith('/metrics/job/flowgauge')).at(-1);
    if (last === undefined) throw new Error(`${name}: nothing was pushed`);
    return { code, report, series: parseExposition(last.body) };
  } finally {
    await Promise.all([target.close(), sink.close()]);
  }
}

/** One figure of the metrics against the report's. */
interface Pair {
  readonly what: string;
  readonly metrics: number;
  readonly report: number;
}

const STATUS_CLASS = (status: string): string => `${status[0]}xx`;
const PHASES = ['blocked', 'connect', 'tls', 'wait', 'receive'] as const;

/**
 * Every count of one unit (a scenario's series, `match` its labels) beside its report section.
 * `violations` are the per-op contract violations when the section lists them.
 */
function pairs(series: readonly Series[], match: Record<string, string>, r: Pick<ScenarioReport, 'ops' | 'stream' | 'rateLimit' | 'slo' | 'iterations' | 'checks' | 'contractViolationTotals'>, violations?: Report['contractViolations']): Pair[] {
  const out: Pair[] = [];
  const m = (name: string, labels: Record<string, string> = {}): number => sumOf(series, name, { ...match, ...labels });
  const add = (what: string, metrics: number, report: number): void => {
    out.push({ what, metrics, report });
  };
  const req = RUN_METRICS.requests.name;
  const seenOps = new Set(series.filter((s) => s.name === req && Object.entries(match).every(([k, v]) => s.labels[k] === v)).map((s) => s.labels.operation));
  add('operations seen', seenOps.size, Object.keys(r.ops).length);
  for (const op of OPS) {
    const o = r.ops[op];
    if (o === undefined) {
      add(`${op}: requests (absent from report)`, m(req, { operation: op }), 0);
      continue;
    }
    add(`${op}: requests`, m(req, { operation: op }), o.count);
    for (const k of ['good', 'bad', 'excluded'] as const) {
      add(`${op}: requests outcome=${k}`, m(req, { operation: op, outcome: k }), o[k]);
      add(`${op}: sli_events ${k}`, m(RUN_METRICS.sliEvents.name, { operation: op, sli: k }), o[k]);
    }
    const byClass = new Map<string, number>();
    for (const [status, n] of Object.entries(o.statuses)) byClass.set(STATUS_CLASS(status), (byClass.get(STATUS_CLASS(status)) ?? 0) + n);
    const answered = Object.values(o.statuses).reduce((a, n) => a + n, 0);
    byClass.set('none', o.count - answered);
    for (const cls of ['1xx', '2xx', '3xx', '4xx', '5xx', 'none']) add(`${op}: requests status_class=${cls}`, m(req, { operation: op, status_class: cls }), byClass.get(cls) ?? 0);
    const errored = Object.values(o.errors).reduce((a, n) => a + n, 0);
    add(`${op}: requests code=none`, m(req, { operation: op, code: 'none' }), o.count - errored);
    for (const [code, n] of Object.entries(o.errors)) add(`${op}: requests code=${code}`, m(req, { operation: op, code }), n);
    const refused = o.statuses['429'] ?? 0;
    add(`${op}: request_duration _count = latencyMs.count`, m(`${RUN_METRICS.requestDuration.name}_count`, { operation: op }), o.latencyMs.count);
    add(`${op}: served answers = count − 429s`, o.latencyMs.count, o.count - refused);
    add(`${op}: rate_limited_duration _count = 429s`, m(`${RUN_METRICS.rateLimitedDuration.name}_count`, { operation: op }), refused);
    add(`${op}: rate_limited (every kind) = 429s`, m(RUN_METRICS.rateLimited.name, { operation: op }), refused);
    for (const phase of PHASES) {
      add(`${op}: request_phase ${phase} _count`, m(`${RUN_METRICS.requestPhase.name}_count`, { operation: op, phase }), o.phases?.[`${phase}Ms`].count ?? 0);
    }
    if (violations !== undefined) {
      add(`${op}: contract_violations`, m(RUN_METRICS.contractViolations.name, { operation: op }), violations.filter((v) => v.op === op).reduce((a, v) => a + v.count, 0));
    }
  }
  add('contract_violations (all ops)', m(RUN_METRICS.contractViolations.name), r.contractViolationTotals?.total ?? 0);
  const rl = r.rateLimit;
  add('rate_limited kind=expected', m(RUN_METRICS.rateLimited.name, { kind: 'expected' }), rl.expected429);
  add('rate_limited kind=premature', m(RUN_METRICS.rateLimited.name, { kind: 'premature' }), rl.premature429);
  add('rate_limited kind=uncertain', m(RUN_METRICS.rateLimited.name, { kind: 'uncertain' }), rl.uncertain429 ?? 0);
  add('rate_limited (all) = responses429', m(RUN_METRICS.rateLimited.name), rl.responses429);
  add('rate_limited_duration _count = rateLimit.latencyMs.count', m(`${RUN_METRICS.rateLimitedDuration.name}_count`), rl.latencyMs?.count ?? -1);
  add('rateLimit.latencyMs.count = responses429', rl.latencyMs?.count ?? -1, rl.responses429);
  add('slo good', m(RUN_METRICS.sliEvents.name, { sli: 'good' }), r.slo.good);
  add('slo bad', m(RUN_METRICS.sliEvents.name, { sli: 'bad' }), r.slo.bad);
  add('slo excluded', m(RUN_METRICS.sliEvents.name, { sli: 'excluded' }), r.slo.excluded);
  const s = r.stream;
  add('stream_incomplete', m(RUN_METRICS.streamIncomplete.name), s.incomplete);
  add('stream_tokens', m(RUN_METRICS.streamTokens.name), s.tokens);
  add('stream_ttft _count', m(`${RUN_METRICS.streamTtft.name}_count`), s.ttftMs.count);
  add('stream_itl _count', m(`${RUN_METRICS.streamItl.name}_count`), s.itlMs.count);
  add('stream_tpot _count', m(`${RUN_METRICS.streamTpot.name}_count`), s.tpotMs.count);
  add('stream_output_tokens_per_second _count', m(`${RUN_METRICS.streamTokensPerSecond.name}_count`), s.tokensPerS.count);
  add('stream_time_to_start _count', m(`${RUN_METRICS.streamTimeToStart.name}_count`), s.timeToStartMs.count);
  const it = r.iterations;
  for (const k of ['completed', 'failed', 'interrupted'] as const) add(`iterations ${k}`, m(JOURNEY_METRICS.iterations.name, { result: k }), it?.[k] ?? 0);
  for (const [name, c] of Object.entries(r.checks ?? {})) {
    add(`check "${name}" pass`, m(JOURNEY_METRICS.checks.name, { check: name, result: 'pass' }), c.passes);
    add(`check "${name}" fail`, m(JOURNEY_METRICS.checks.name, { check: name, result: 'fail' }), c.fails);
  }
  return out;
}

const disagreements = (list: readonly Pair[]): string[] => list.filter((p) => p.metrics !== p.report).map((p) => `${p.what}: metrics ${p.metrics}, report ${p.report}`);

/** Refuses much of the load: 2 s windows of 3 (free) and 6 (pro, of which it admits 4), failed and cut streams. */
const LIMITING: ReferenceServiceOptions = {
  rateLimit: { windowMs: 2000 },
  tokens: {
    [FREE]: { account: 'acct_a', tier: { limitPerMinute: 90 } },
    [PRO]: { account: 'acct_b', tier: { limitPerMinute: 180 } },
  },
  latency: { ttftMs: 5, itlMs: 2, tokens: { min: 3, max: 8 } },
  faults: {
    throttleAfter: 4,
    truncatedStreamRate: 0.2,
    errors: { stream: { rate: 0.2, status: 503 }, getFlow: { rate: 0.2, status: 500 }, getHistory: { rate: 0.2, status: 503 } },
  },
};

describe.concurrent('report.json and /metrics agree on every count', () => {
  it('ships the scenarios this test runs', () => {
    expect(SCENARIOS.length).toBeGreaterThanOrEqual(13);
  });

  // Side by side (vitest's maxConcurrency, 5 at a time): each run mostly waits on its schedule
  // and its grace period, and owns its service, its sink and its --out.
  it.for(SCENARIOS)('%s', { timeout: 90_000 }, async (file, { expect }) => {
    const name = file.replace(/\.\w+$/, '');
    const { report, series } = await runOnce(name, join('scenarios', file), LIMITING, ['--duration', '2s']);
    expect(report.ops, 'the run sent requests').not.toEqual({});
    const all: Pair[] = [];
    const sections = Object.entries(report.scenarios ?? {});
    if (sections.length === 0) {
      all.push(...pairs(series, {}, report, report.contractViolations));
    } else {
      // Each scenario's series carry its own label; the run's figures are their sum.
      for (const [scenario, section] of sections) all.push(...pairs(series, { scenario }, section).map((p) => ({ ...p, what: `${scenario}: ${p.what}` })));
      all.push(...pairs(series, {}, report, report.contractViolations));
    }
    all.push({ what: 'dropped', metrics: sumOf(series, RUN_METRICS.dropped.name), report: report.load.dropped });
    all.push({ what: 'scheduled = started + dropped', metrics: sumOf(series, RUN_METRICS.scheduled.name), report: report.load.started + report.load.dropped });
    expect(disagreements(all)).toEqual([]);
    // Not vacuous: the limiter refused some of it.
    if (report.load.started >= 8) expect(report.rateLimit.responses429, 'the limiter refused some requests').toBeGreaterThan(0);
  });
});

// Alone, after the others: its p50 < 200 ms is this process's own latency, which runs beside it would add to.
describe('a limiter of 10 per 2 s before runs of 100 ms', () => {
  it('fails run.latency.p50 < 50ms with p50 ≈ 100 ms, and counts the 429s apart in the report and the metrics', async () => {
    const scenario = join(dir, 'limited.json');
    writeFileSync(
      scenario,
      JSON.stringify({
        name: 'limited',
        tier: 'pro',
        load: { executor: 'constant-arrival-rate', rate: '16/s', duration: '4s' },
        mix: [{ op: 'run', input: 'hello' }],
        thresholds: { 'run.latency.p50': '<50ms' },
      }),
    );
    const { code, report, series } = await runOnce(
      'limited',
      scenario,
      {
        rateLimit: { windowMs: 2000 },
        // 300 per minute in 2 s windows: 10 per window.
        tokens: { [PRO]: { account: 'acct_b', tier: { limitPerMinute: 300 } } },
        latency: 'none',
        faults: { latencyMs: { run: 100 } },
      },
    );
    const run = report.ops.run!;
    const refused = run.statuses['429'] ?? 0;
    // The truth: about 10 of every 32 per window served, in 100 ms each; the rest refused at once.
    expect(refused).toBeGreaterThan(run.count / 3);
    expect(run.count).toBe(report.load.started);
    expect(run.latencyMs.count).toBe(run.count - refused);
    expect(run.latencyMs.p50).toBeGreaterThanOrEqual(100);
    expect(run.latencyMs.p50).toBeLessThan(200);
    const p50 = report.thresholds.find((t) => t.metric === 'run.latency.p50');
    expect(p50).toMatchObject({ passed: false });
    expect(p50?.observed).toBe(run.latencyMs.p50);
    expect(report.passed).toBe(false);
    expect(code).toBe(1);
    // 429 latency has its own figures: every 429, answered at once (a few ms, unloaded).
    expect(report.rateLimit.responses429).toBe(refused);
    expect(report.rateLimit.latencyMs?.count).toBe(refused);
    expect(report.rateLimit.latencyMs?.p50).toBeLessThan(run.latencyMs.p50);
    expect(reportMetric(report, 'ratelimit.latency.p99')).toBe(report.rateLimit.latencyMs?.p99);
    expect(reportMetric(report, 'ratelimit.latency.count')).toBe(refused);
    expect(report.histograms['ratelimit.latency']).toMatch(/^HISTF/);
    // Prometheus sees the same two populations: no served run under 50 ms, every 429 apart.
    const d = RUN_METRICS.requestDuration.name;
    expect(sumOf(series, `${d}_count`, { operation: 'run' })).toBe(run.latencyMs.count);
    expect(sumOf(series, `${d}_bucket`, { operation: 'run', le: '0.05' })).toBe(0);
    expect(sumOf(series, `${RUN_METRICS.rateLimitedDuration.name}_count`, { operation: 'run' })).toBe(refused);
    expect(sumOf(series, `${RUN_METRICS.rateLimitedDuration.name}_bucket`, { operation: 'run', le: '+Inf' })).toBe(refused);
  }, 30_000);
});
