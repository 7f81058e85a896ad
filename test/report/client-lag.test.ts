/**
 * When the generator lagged (EVENT_LOOP_LAG), each threshold on a duration the client measured
 * says its figure includes that lag: in report.json (`thresholds[].clientLagMs`), the console,
 * report.md and report.html; thresholds on anything else, and runs without the warning, say
 * nothing. Judged on the fixture report, merged, and on the generator observer's own warning.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { clientLagMsOf } from '../../src/report/client-lag.js';
import { renderHtml } from '../../src/report/html.js';
import { renderMarkdown } from '../../src/report/markdown.js';
import { mergeReports } from '../../src/report/merge.js';
import { evaluateReportThresholds } from '../../src/report/metrics.js';
import type { Report, RunWarning } from '../../src/report/model.js';
import { reportSchema } from '../../src/report/report-schema.js';
import { renderSummary } from '../../src/report/summary.js';
import type { PhaseContext } from '../../src/run/phase.js';
import { createGeneratorPhase } from '../../src/run/phases/generator-phase.js';
import { parseThreshold, type ParsedThreshold } from '../../src/slo/thresholds.js';
import { fixtureReport, WALL0 } from './fixture.js';

const THRESHOLDS = {
  'run.latency.p99': '< 2s',
  'stream.ttft.p95': '< 5ms',
  'stream.itl.p50': '< 1s',
  availability: '>= 99%',
  'run.latency.count': '> 0',
  'http:absent.latency.p99': '< 1s',
};
const parsed: ParsedThreshold[] = Object.entries(THRESHOLDS).map(([k, e]) => {
  const r = parseThreshold(k, e);
  if (!r.ok) throw new Error(r.error);
  return r.threshold;
});

const lag = (p99: number, max = p99 * 2): RunWarning => ({
  code: 'EVENT_LOOP_LAG',
  eventLoopDelayMs: { p99, max },
  message: `flowgauge's event loop was blocked (delay p99 ${p99.toFixed(1)} ms, max ${max.toFixed(1)} ms): arrivals and timings include client-side delay`,
});
const cpu: RunWarning = { code: 'GENERATOR_CPU', message: 'flowgauge used 95 % of a core' };

function judged(warnings: readonly RunWarning[] | undefined, at = 0): Report {
  const base = fixtureReport();
  const r: Report = { ...base, startedAt: new Date(WALL0 + at).toISOString(), ...(warnings === undefined ? {} : { warnings }) };
  return evaluateReportThresholds(r, parsed);
}
const byMetric = (r: Report): Record<string, Report['thresholds'][number]> => Object.fromEntries(r.thresholds.map((t) => [t.metric, t]));
/** The chart library is not what is tested here. */
const ASSETS = { uplotJs: '', uplotCss: '' };
const NOTE = '(includes client lag: event-loop delay p99 368ms)';

describe('the client-lag note on latency thresholds', () => {
  it('goes on every observed duration threshold when EVENT_LOOP_LAG is present, and on nothing else', () => {
    const t = byMetric(judged([cpu, lag(368.2)]));
    for (const k of ['run.latency.p99', 'stream.ttft.p95', 'stream.itl.p50']) expect(t[k]?.clientLagMs, k).toBe(368.2);
    for (const k of ['availability', 'run.latency.count', 'http:absent.latency.p99']) expect(t[k] !== undefined && 'clientLagMs' in t[k], k).toBe(false);
    // The note says; it does not judge: the verdicts are those of the same report without the warning.
    const plain = byMetric(judged(undefined));
    for (const k of Object.keys(THRESHOLDS)) expect(t[k]?.passed, k).toBe(plain[k]?.passed);
    expect(t['stream.ttft.p95']?.passed).toBe(false);
  });

  it('is absent without the warning, or with other warnings only', () => {
    for (const w of [undefined, [], [cpu]]) {
      const r = judged(w);
      expect(r.thresholds.some((t) => 'clientLagMs' in t)).toBe(false);
      for (const text of [renderSummary(r, { color: false }), renderMarkdown(r), renderHtml(r, ASSETS)]) expect(text).not.toContain('includes client lag');
    }
  });

  it('is said on the verdict lines of the console, report.md and report.html', () => {
    const r = judged([lag(368.2)]);
    const summary = renderSummary(r, { color: false });
    const lines = (text: string, what: string): string[] => text.split('\n').filter((l) => l.includes(what));
    for (const k of ['run.latency.p99', 'stream.ttft.p95', 'stream.itl.p50']) {
      expect(lines(summary, `✗ ${k}`).concat(lines(summary, `✓ ${k}`)).join('\n'), k).toContain(NOTE);
    }
    expect(lines(summary, '✓ availability').join('\n') + lines(summary, '✗ availability').join('\n')).not.toContain('client lag');
    const md = renderMarkdown(r);
    expect(md).toMatch(/\| `stream\.ttft\.p95` \| < 5\.0ms \| [\d.]+ms \(includes client lag: event-loop delay p99 368ms\) \| ❌ fail \|/);
    expect(lines(md, '| `availability` |').join('\n')).not.toContain('client lag');
    const html = renderHtml(r, ASSETS);
    expect(html).toContain(NOTE);
    expect(html.split(NOTE).length - 1).toBe(3);
  });

  it('is part of report@1: the report with it passes the schema, read back as JSON', () => {
    const r = JSON.parse(JSON.stringify(judged([lag(368.2)]))) as unknown;
    expect(reportSchema.safeParse(r).error?.issues ?? []).toEqual([]);
  });

  it('survives a merge, with the worst lag of the parts; the merged warning keeps its figures', () => {
    const m = mergeReports([judged([lag(120)]), judged([lag(368.2, 900)], 1000)]);
    expect(byMetric(m)['run.latency.p99']?.clientLagMs).toBe(368.2);
    expect(m.warnings?.filter((w) => w.code === 'EVENT_LOOP_LAG').map((w) => w.eventLoopDelayMs)).toEqual([
      { p99: 120, max: 240 },
      { p99: 368.2, max: 900 },
    ]);
    const none = mergeReports([judged(undefined), judged([cpu], 1000)]);
    expect(none.thresholds.some((t) => 'clientLagMs' in t)).toBe(false);
    const shards = mergeReports([
      { ...judged([lag(50.5)]), shard: { index: 0, count: 2, fingerprint: 'f' } },
      { ...judged(undefined, 500), shard: { index: 1, count: 2, fingerprint: 'f' } },
    ]);
    expect(byMetric(shards)['stream.ttft.p95']?.clientLagMs).toBe(50.5);
    expect(shards.warnings?.find((w) => w.code === 'EVENT_LOOP_LAG')?.eventLoopDelayMs).toEqual({ p99: 50.5, max: 101 });
  });

  it('reads the lag of a report written before the warning carried its figures from its words', () => {
    expect(clientLagMsOf([{ code: 'EVENT_LOOP_LAG', message: "flowgauge's event loop was blocked (delay p99 212.5 ms, max 800.0 ms): …" }])).toBe(212.5);
    expect(clientLagMsOf([{ code: 'EVENT_LOOP_LAG', message: 'lag' }])).toBeUndefined();
    expect(clientLagMsOf([cpu])).toBeUndefined();
  });

  it("the generator's warning carries the figures its message says", async () => {
    const o = createGeneratorPhase({ eventLoopP99Ms: 0 });
    // The generator reads nothing of the context: it watches its own process.
    void o.start?.({} as PhaseContext);
    // Blocks its own loop a little, so the delay histogram has samples; the limit is 0, so any delay is one.
    for (let i = 0; i < 5; i++) {
      const until = performance.now() + 20;
      while (performance.now() < until);
      await sleep(15);
    }
    o.scheduleEnded?.(fixtureReport());
    const w = o.warnings?.().find((x) => x.code === 'EVENT_LOOP_LAG');
    expect(w).toBeDefined();
    const said = /delay p99 ([\d.]+) ms, max ([\d.]+) ms/.exec(w?.message ?? '');
    expect(w?.eventLoopDelayMs).toEqual({ p99: Number(said?.[1]), max: Number(said?.[2]) });
  });
});
