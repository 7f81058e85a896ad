import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { reportProblems } from '../../src/report/read.js';
import { createCollectors } from '../../src/collect/collectors.js';
import { createLatencyHistogram, decodeHistogram, emptyPct, recordScaled, toPct } from '../../src/collect/histogram.js';
import { buildChartData, inferWindowS, percentileCurve } from '../../src/report/html-data.js';
import { esc, jsonForScript } from '../../src/report/html-parts.js';
import { renderHtml } from '../../src/report/html.js';
import { renderMarkdown } from '../../src/report/markdown.js';
import { evaluateReportThresholds } from '../../src/report/metrics.js';
import { buildReport } from '../../src/report/build-report.js';
import type { RateLimitReport, Report } from '../../src/report/model.js';
import { parseThreshold } from '../../src/slo/thresholds.js';
import { MS, rl, sample } from '../collect/samples.js';
import { fixtureReport } from './fixture.js';

const require = createRequire(import.meta.url);
const ASSETS = {
  uplotJs: readFileSync(require.resolve('uplot/dist/uPlot.iife.min.js'), 'utf8'),
  uplotCss: readFileSync(require.resolve('uplot/dist/uPlot.min.css'), 'utf8'),
};

function judged(r: Report, pairs: Record<string, string>): Report {
  return evaluateReportThresholds(
    r,
    Object.entries(pairs).map(([k, e]) => {
      const p = parseThreshold(k, e);
      if (!p.ok) throw new Error(p.error);
      return p.threshold;
    }),
  );
}

/** The contents of every `<script>` element without a type. */
const inlineScripts = (html: string): string[] => [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1] as string);
const embeddedData = (html: string): unknown =>
  JSON.parse(/<script type="application\/json" id="fg-chart-data">([\s\S]*?)<\/script>/.exec(html)?.[1] ?? 'null');

/** A report carrying hostile text wherever the service can put text. */
function hostileReport(): Report {
  const evil = '</script><img src=x onerror=alert(1)>';
  const c = createCollectors({ runStartNs: 0 });
  c.observe(sample({ violations: [{ op: 'run', path: `output.${evil}`, expected: 'string', got: `"${evil}"` }] }));
  c.observe(sample({ intendedNs: MS, endNs: 12 * MS, status: 429, errorCode: 'RATE_LIMITED', rateLimit: rl(10, 0, undefined) }));
  const r = buildReport({
    scenario: `<script>alert("x")</script>`,
    interrupted: true,
    target: { baseUrl: 'https://api.example.com/v1', embedded: false },
    startedAtMs: 0,
    endedAtMs: 2000,
    load: { executor: 'constant-arrival-rate', targetRatePerS: 1, started: 2, dropped: 0, scheduleLagMs: emptyPct() },
    snapshot: c.snapshot(1e10),
    thresholds: [],
  });
  return { ...r, rateLimit: { ...r.rateLimit, headerViolations: { [evil]: 1 }, windows: [{ reset: evil, accepted: 1, rejected: 1, limit: 10, minRemaining: 0 }] } };
}

describe('renderHtml', () => {
  it('puts the verdict first, then thresholds, SLO, latency, streams, rate limits, errors, violations', () => {
    const html = renderHtml(judged(fixtureReport(), { availability: '>= 99.9%', 'run.latency.p99': '< 2s' }), ASSETS);
    expect(html.startsWith('<!doctype html>')).toBe(true);
    const order = ['id="verdict"', 'id="thresholds"', 'id="slo"', 'id="latency"', 'id="stream"', 'id="ratelimit"', 'id="errors"', 'id="contract"'];
    const at = order.map((s) => html.indexOf(s));
    expect(at.every((i) => i > 0)).toBe(true);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
    expect(html).toMatch(/<div class="word">FAIL<\/div>/);
    expect(html).toContain('1 of 2 thresholds passed.');
    expect(html).toContain('<code>availability</code>');
    expect(html).toContain('Availability 99.8% against the 99.9% objective: missed; error budget consumed 200.0%.');
    expect(html).toContain('<code>SERVICE_UNAVAILABLE</code>');
    expect(html).toContain('<code>usage.total_tokens</code>');
    for (const id of ['chart-latency-run', 'chart-latency-stream', 'chart-dist-stream-ttft', 'chart-dist-stream-itl', 'chart-rate', 'chart-budget']) {
      expect(html, id).toContain(`id="${id}"`);
    }
  });

  it('is self-contained: no URL, no external reference, a CSP allowing only its own two scripts', () => {
    const html = renderHtml(hostileReport(), ASSETS);
    expect(html).not.toMatch(/[a-z]+:\/\//i);
    // No element loads anything (text mentioning `src=` is escaped, so it is no tag).
    expect(html).not.toMatch(/<[a-z][^>]*\ssrc\s*=/i);
    expect(html).not.toMatch(/@import|url\(/i);
    const hrefs = [...html.matchAll(/href="([^"]*)"/g)].map((m) => m[1]);
    expect(hrefs.length).toBeGreaterThan(0);
    expect(hrefs.every((h) => h?.startsWith('#'))).toBe(true);
    const csp = /http-equiv="Content-Security-Policy" content="([^"]+)"/.exec(html)?.[1]?.replace(/&#39;/g, "'") ?? '';
    expect(csp).toContain("default-src 'none'");
    const scripts = inlineScripts(html);
    expect(scripts).toHaveLength(2);
    for (const s of scripts) expect(csp).toContain(`'sha256-${createHash('sha256').update(s).digest('base64')}'`);
    // The target is shown as text (with its scheme written as an entity), never linked.
    expect(html).toContain('https&#58;//api.example.com/v1');
  });

  it('escapes every text that came from the report', () => {
    const html = renderHtml(hostileReport(), ASSETS);
    expect(html).not.toContain('<img');
    expect(html).not.toContain('<script>alert');
    expect(html.match(/<\/script>/g)).toHaveLength(3);
    expect(html).toContain('&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;');
    expect(html).toContain('flowgauge report: &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;');
    expect(html).toContain('this report covers only the part that ran');
    expect(esc(`a<b>&"'`)).toBe('a&lt;b&gt;&amp;&quot;&#39;');
    expect(jsonForScript({ s: '</script><!--' })).toBe('{"s":"\\u003c/script\\u003e\\u003c!--"}');
    expect(JSON.parse(jsonForScript({ s: '</script>&\u2028' }))).toEqual({ s: '</script>&\u2028' });
  });

  it('embeds chart data decoded from the slices and histograms', () => {
    const report = fixtureReport();
    const html = renderHtml(report, ASSETS);
    const data = embeddedData(html) as ReturnType<typeof buildChartData>;
    expect(data).toEqual(buildChartData(report));
    const run = data.latency.find((c) => c.op === 'run');
    expect(run?.t.length).toBe(report.slices.length);
    // Slice 5's p99 is the p99 of that slice's own histogram.
    const s5 = toPct(decodeHistogram(report.slices[5]?.ops.run?.latency as string));
    expect(run?.p99[5]).toBe(s5.p99);
    expect(run?.p50[5]).toBe(s5.p50);
    expect(data.distributions.map((d) => d.key)).toEqual(['stream.ttft', 'stream.itl']);
    expect(data.rate?.requestsPerS.reduce((a, b) => a + b, 0)).toBeCloseTo(report.slices.reduce((n, s) => n + s.requests, 0), 6);
    expect(data.rate?.limitPerS).toBeCloseTo(1000 / 60, 3);
    expect(data.rate?.limitLabel).toContain('advertised 1000 per window');
    expect(data.budget?.consumed.at(-1)).toBeCloseTo(report.slo.errorBudgetConsumed, 3);
  });

  it('says what is missing instead of drawing empty charts', () => {
    const c = createCollectors({ runStartNs: 0 });
    const r = buildReport({
      scenario: 'empty',
      interrupted: false,
      target: { baseUrl: 'http://127.0.0.1:1/v1', embedded: true },
      startedAtMs: 0,
      endedAtMs: 1000,
      load: { executor: 'constant-arrival-rate', targetRatePerS: 1, started: 0, dropped: 0, scheduleLagMs: emptyPct() },
      snapshot: c.snapshot(1e9),
      thresholds: [],
    });
    const html = renderHtml(r, ASSETS);
    expect(html).toContain('No requests completed.');
    expect(html).toContain('No streams in this run.');
    expect(html).not.toContain('class="plot"');
    expect(html).toMatch(/<div class="word">PASS<\/div>/);
  });

  it('shrinks long runs to at most 1200 points per chart, merging slices exactly', () => {
    const base = fixtureReport();
    const slices = Array.from({ length: 3000 }, (_, i) => ({ ...(base.slices[i % base.slices.length] as Report['slices'][number]), t: i }));
    const data = buildChartData({ ...base, slices });
    const run = data.latency.find((c) => c.op === 'run');
    expect(run?.t.length).toBe(1000);
    expect(data.stepS).toBe(3);
    expect(data.rate?.t.length).toBe(1000);
  });
});

describe('a schedule that ends inside the last slice', () => {
  it('makes the last point partial: its rate per second of the part it holds, the budget ending where the schedule did', () => {
    const base = fixtureReport();
    // The schedule ended 0.25 s into the 60th slice: its requests are a quarter second's.
    const report: Report = { ...base, load: { ...base.load, scheduleS: 59.25 } };
    const data = buildChartData(report);
    expect(data.partial).toEqual({ fromS: 59, toS: 59.25 });
    const last = report.slices.at(-1)!;
    expect(data.rate?.requestsPerS.at(-1)).toBe(last.requests / 0.25);
    expect(data.rate?.requestsPerS.at(-2)).toBe(report.slices.at(-2)!.requests);
    expect(data.budget?.t.at(-1)).toBe(59.25);
    expect(renderHtml(report, ASSETS)).toContain('The last point holds the schedule&#39;s final 0.25 s (shaded): its rates are per second of that part.');
  });

  it('is whole when the schedule fills its last slice, when slices follow its end, and is grouped with long runs', () => {
    const base = fixtureReport();
    expect(buildChartData({ ...base, load: { ...base.load, scheduleS: 60 } }).partial).toBeNull();
    // A journey's steps after the schedule's end: the last slices are not on the schedule.
    expect(buildChartData({ ...base, load: { ...base.load, scheduleS: 57.5 } }).partial).toBeNull();
    expect(renderHtml({ ...base, load: { ...base.load, scheduleS: 60 } }, ASSETS)).not.toContain('(shaded)');
    // 3000 slices in steps of 3: the last step (2997–3000 s) holds 1.5 s of a schedule of 2998.5 s.
    const slices = Array.from({ length: 3000 }, (_, i) => ({ ...(base.slices[i % base.slices.length] as Report['slices'][number]), t: i }));
    const long = buildChartData({ ...base, slices, durationS: 3000, load: { ...base.load, scheduleS: 2998.5 } });
    expect(long.partial).toEqual({ fromS: 2997, toS: 2998.5 });
    const lastThree = slices.slice(-3).reduce((n, x) => n + x.requests, 0);
    expect(long.rate?.requestsPerS.at(-1)).toBeCloseTo(lastThree / 1.5, 3);
  });
});

describe('chart helpers', () => {
  it('percentile curves rise from the minimum to the maximum, x in nines', () => {
    const h = createLatencyHistogram();
    for (let i = 1; i <= 10_000; i++) recordScaled(h, i * 10);
    const { x, y } = percentileCurve(h);
    expect(x[0]).toBe(0);
    expect(x.at(-1)).toBeCloseTo(4.1, 6);
    expect(y[0]).toBeCloseTo(0.01, 2);
    expect(y[10]).toBeCloseTo(90, 0); // one nine: p90 of 0.01..100 ms
    expect(y[20]).toBeCloseTo(99, 0);
    expect(y.at(-1)).toBeCloseTo(100, 0);
    for (let i = 1; i < y.length; i++) expect(y[i]).toBeGreaterThanOrEqual(y[i - 1] as number);
    expect(percentileCurve(createLatencyHistogram())).toEqual({ x: [], y: [] });
  });

  it('infers the rate-limit window from Reset values, else assumes the tiers’ minute', () => {
    const rlr = (resetSemantics: RateLimitReport['resetSemantics'], resets: (string | null)[]): RateLimitReport =>
      ({ resetSemantics, windows: resets.map((reset) => ({ reset, accepted: 1, rejected: 0, limit: 10, minRemaining: 1 })) }) as unknown as RateLimitReport;
    expect(inferWindowS(rlr('epoch-seconds', ['1000', '1030', '1060', '1090']))).toEqual({ seconds: 30, inferred: true });
    expect(inferWindowS(rlr('delta-seconds', ['37', '60']))).toEqual({ seconds: 60, inferred: true });
    expect(inferWindowS(rlr('delta-seconds', ['9']))).toEqual({ seconds: 10, inferred: true });
    expect(inferWindowS(rlr('delta-seconds', ['2', '1']))).toEqual({ seconds: 2, inferred: true });
    expect(inferWindowS(rlr('unknown', [null]))).toEqual({ seconds: 60, inferred: false });
  });
});

describe('reading report files', () => {
  it('names what makes a document not a report@1', () => {
    expect(reportProblems(fixtureReport())).toEqual([]);
    expect(reportProblems(JSON.parse(JSON.stringify(fixtureReport())))).toEqual([]);
    expect(reportProblems({ schema: 'flowgauge/report@2' })[0]).toMatch(/is not flowgauge\/report@1/);
    expect(reportProblems([])).toEqual(['(root): expected object, got []']);
    const broken = { ...fixtureReport(), durationS: 'long', ops: { run: { count: -1 }, fly: {} } };
    const problems = reportProblems(JSON.parse(JSON.stringify(broken)));
    expect(problems).toContain('durationS: expected number, got "long"');
    expect(problems).toContain('ops.run.count: -1 is below 0');
    expect(problems).toContain('ops.run: missing good, bad, excluded, statuses, errors, latencyMs');
    expect(problems.some((p) => p.startsWith('ops.fly: unexpected key'))).toBe(true);
  });
});

describe('flowgauge report', () => {
  const dir = mkdtempSync(join(tmpdir(), 'fg-report-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'report.json');
  writeFileSync(file, JSON.stringify(fixtureReport()));

  it('re-renders as html (default), md or json, to stdout or a file', async () => {
    const html = memoryIo({ cwd: dir });
    expect(await main(['report', 'report.json'], html)).toBe(0);
    expect(html.out()).toMatch(/^<!doctype html>/);
    const md = memoryIo({ cwd: dir });
    expect(await main(['report', file, '--format', 'md'], md)).toBe(0);
    expect(md.out()).toBe(renderMarkdown(fixtureReport()));
    const json = memoryIo({ cwd: dir });
    expect(await main(['report', file, '--format', 'json', '--out', 'again/r.json'], json)).toBe(0);
    expect(JSON.parse(readFileSync(join(dir, 'again/r.json'), 'utf8'))).toEqual(JSON.parse(JSON.stringify(fixtureReport())));
  });

  it('exits 2 naming what is wrong with a file that is not a report', async () => {
    writeFileSync(join(dir, 'text.json'), 'hello');
    writeFileSync(join(dir, 'other.json'), JSON.stringify({ schema: 'flowgauge/report@1', scenario: 3 }));
    const cases: [string, RegExp][] = [
      ['missing.json', /missing\.json: cannot read the file \(no such file\)/],
      ['text.json', /text\.json: not JSON/],
      ['other.json', /other\.json: not a flowgauge\/report@1 report:\n {2}- scenario: expected string, got 3/],
    ];
    for (const [name, re] of cases) {
      const io = memoryIo({ cwd: dir });
      expect(await main(['report', name], io), name).toBe(2);
      expect(io.err()).toMatch(re);
    }
  });
});

describe('renderMarkdown with hostile text', () => {
  it('escapes every text the target or a report file put there: no HTML, no forged heading', () => {
    const md = renderMarkdown(hostileReport());
    // Code spans render their text as text; everywhere else HTML must not survive.
    expect(md.replace(/`[^`\n]*`/g, '')).not.toMatch(/<script|<img|<\/script/);
    expect(md).toContain('&lt;img src=x onerror=alert(1)&gt;');
    // Only the report's own headings start a line with '#'.
    for (const line of md.split('\n').filter((l) => l.startsWith('#'))) expect(line).toMatch(/^#{1,3} [A-Za-z✅❌⏹️🛑]|^# flowgauge report: /);
  });
});
