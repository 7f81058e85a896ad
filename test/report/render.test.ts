import { describe, expect, it } from 'vitest';
import { createCollectors } from '../../src/collect/collectors.js';
import { emptyPct } from '../../src/collect/histogram.js';
import { fmtRatio, fmtShare } from '../../src/report/format.js';
import { renderMarkdown } from '../../src/report/markdown.js';
import { evaluateReportThresholds } from '../../src/report/metrics.js';
import { buildReport } from '../../src/report/build-report.js';
import type { Report } from '../../src/report/model.js';
import { renderSummary } from '../../src/report/summary.js';
import { parseThreshold } from '../../src/slo/thresholds.js';
import { sample } from '../collect/samples.js';
import { fixtureReport } from './fixture.js';

function judged(pairs: Record<string, string>): Report {
  const parsed = Object.entries(pairs).map(([k, e]) => {
    const r = parseThreshold(k, e);
    if (!r.ok) throw new Error(r.error);
    return r.threshold;
  });
  return evaluateReportThresholds(fixtureReport(), parsed);
}

describe('renderMarkdown', () => {
  it('puts the verdict first, then thresholds, availability and budget', () => {
    const md = renderMarkdown(judged({ availability: '>= 99.9%', 'run.latency.p99': '< 2s' }));
    const lines = md.split('\n');
    expect(lines[0]).toBe('# flowgauge report: mixed-pro');
    expect(md.indexOf('FAIL')).toBeLessThan(md.indexOf('## Run'));
    expect(md).toContain('1 of 2 thresholds passed.');
    expect(md).toContain('| `availability` | >= 99.9% | 99.8% | ❌ fail |');
    expect(md).toMatch(/\| `run.latency.p99` \| < 2.00s \| [\d.]+ms \| ✅ pass \|/);
    expect(md).toContain('**Availability 99.8%** against an objective of 99.9% (missed)');
    expect(md).toContain('error budget consumed 200.0%, burn rate 2');
  });

  it('shows per-op latency, stream timing, rate limits, errors and violations', () => {
    const r = judged({ 'ratelimit.premature429': '== 0' });
    const md = renderMarkdown(r);
    expect(md).toContain('## ✅ PASS');
    expect(md).toMatch(/\| `run` \| 950 \| 99.733% \| 2 \| 200 \|/);
    expect(md).toMatch(/\| time to first token \(TTFT\) \| 250 \| 100ms \|/);
    expect(md).toMatch(/\| inter-token latency \(ITL\) \| 750 \| 50.0ms \|/);
    expect(md).toContain('- Advertised limit: 1000; Reset semantics: `delta-seconds`');
    expect(md).toContain('- 429 responses: 200 (199 expected, 0 premature, 1 uncertain: 0.5 %)');
    expect(md).toContain('- First 429: request #1001');
    expect(md).toContain('| `run` | `SERVICE_UNAVAILABLE` | 1 |');
    expect(md).toContain('| `run` | `usage.total_tokens` | integer | string | 1 |');
  });

  it('escapes user text in tables and says when a run was interrupted', () => {
    const c = createCollectors({ runStartNs: 0 });
    c.observe(sample({ violations: [{ op: 'run', path: 'output', expected: 'string', got: '"a|b\nc"' }] }));
    const r = buildReport({
      scenario: 'pipe|name',
      interrupted: true,
      target: { baseUrl: 'http://127.0.0.1:1/v1', embedded: false },
      startedAtMs: 0,
      endedAtMs: 1000,
      load: { executor: 'constant-arrival-rate', targetRatePerS: 1, started: 1, dropped: 0, scheduleLagMs: emptyPct() },
      snapshot: c.snapshot(1e9),
      thresholds: [],
    });
    const md = renderMarkdown(r);
    expect(md).toContain('"a\\|b c"');
    expect(md).toContain('pipe\\|name');
    expect(md).toContain('interrupted');
    expect(md).toContain('No thresholds were set.');
  });
});

describe('renderSummary', () => {
  it('shows the verdict, op table, stream, 429s, availability and thresholds', () => {
    const out = renderSummary(judged({ availability: '>= 99.9%', 'stream.ttft.p99': '< 500ms' }));
    expect(out.split('\n')[0]).toMatch(/^flowgauge mixed-pro: FAIL in 60 s, 1200 started, 0 dropped, 20\/s$/);
    expect(out).toMatch(/^op\s+count\s+ok\s+excluded\s+429\s+p50/m);
    expect(out).toMatch(/^run\s+950\s+99.733%\s+200 \(21\.1%\)\s+200\s+[\d.]+ms/m);
    expect(out).toMatch(/^stream\s+250\s+100%\s+0\s+0\s+300ms/m);
    expect(out).toContain('TTFT p50 100ms p99 100ms; ITL p50 50.0ms p99 50.0ms');
    expect(out).toContain('429s    200 (199 expected, 0 premature, 1 uncertain: 0.5 %); limit 1000, reset delta-seconds');
    // Why `ok` is below 100 %: the codes and statuses (429s are on their own line, not here).
    expect(out).toContain('errors  1 SERVICE_UNAVAILABLE; HTTP 503 ×1');
    expect(out).toContain('availability 99.8% (objective 99.9%), budget consumed 200.0%');
    expect(out).toMatch(/✗ availability\s+>= 99.9%\s+99.8%/);
    expect(out).toMatch(/✓ stream.ttft.p99\s+< 500ms\s+100ms/);
    expect(out).not.toContain('\x1b[');
  });

  it('lists the commonest error codes and statuses, glossing UNKNOWN, and no errors line without errors', () => {
    const base = fixtureReport();
    const run = base.ops.run!;
    const r: Report = {
      ...base,
      ops: {
        ...base.ops,
        run: { ...run, errors: { UNKNOWN: 40, CONNECTION_RESET: 2, TIMEOUT: 1, MALFORMED_BODY: 1, PROTOCOL_ERROR: 1 }, statuses: { ...run.statuses, '502': 40, '504': 1 } },
      },
    };
    expect(renderSummary(r)).toContain('errors  40 UNKNOWN (no interface error code), 2 CONNECTION_RESET, 1 TIMEOUT, 1 MALFORMED_BODY, …; HTTP 502 ×40, 503 ×1, 504 ×1');
    const clean: Report = { ...base, ops: Object.fromEntries(Object.entries(base.ops).map(([k, o]) => [k, { ...o, errors: {} }])) };
    expect(renderSummary(clean)).not.toMatch(/^errors /m);
  });

  it('colours only when asked', () => {
    const out = renderSummary(judged({ availability: '>= 99%' }), { color: true });
    expect(out).toContain('\x1b[32mPASS\x1b[0m');
    expect(out).toContain('\x1b[32m✓\x1b[0m');
  });
});

describe('formatting', () => {
  it('formats ratios near the objective with enough digits', () => {
    expect(fmtRatio(0.999)).toBe('99.9%');
    expect(fmtRatio(0.99951)).toBe('99.951%');
    expect(fmtRatio(1)).toBe('100%');
    expect(fmtRatio(0.5)).toBe('50%');
    expect(fmtRatio(null)).toBe('—');
    expect(fmtShare(2)).toBe('200.0%');
  });
});
