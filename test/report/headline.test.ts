import { describe, expect, it } from 'vitest';
import { renderHtml } from '../../src/report/html.js';
import { renderMarkdown } from '../../src/report/markdown.js';
import type { Report } from '../../src/report/model.js';
import { renderSummary } from '../../src/report/summary.js';
import { fixtureReport } from './fixture.js';

const ASSETS = { uplotJs: '', uplotCss: '' };
const passing = (): Report => ({ ...fixtureReport(), passed: true, verdict: 'PASS', thresholds: [] });

describe('verdict headlines never flatter', () => {
  it('an interrupted run is INTERRUPTED in the console, report.md and report.html, never PASS', () => {
    const r: Report = { ...passing(), interrupted: true, verdict: 'INTERRUPTED' };
    const summary = renderSummary(r);
    expect(summary.split('\n')[0]).toMatch(/^flowgauge mixed-pro: INTERRUPTED in 60 s/);
    expect(summary).toContain('interrupted after 60 s: this report covers only the part that ran, and the thresholds are shown as they stood');
    const md = renderMarkdown(r);
    expect(md).toContain('## ⏹️ INTERRUPTED');
    expect(md).not.toMatch(/PASS/);
    const html = renderHtml(r, ASSETS);
    expect(html).toContain('<div class="word">INTERRUPTED</div>');
    expect(html).toContain('<title>flowgauge: mixed-pro — INTERRUPTED</title>');
  });

  it('an aborted run names the threshold, its limit and when it stopped', () => {
    const base = passing();
    const r: Report = {
      ...base,
      passed: false,
      verdict: 'ABORTED',
      durationS: 1.036,
      abortedBy: 'run.latency.p99',
      thresholds: [{ metric: 'run.latency.p99', op: '<', value: 50, observed: 120, passed: false }],
    } as Report;
    const line = 'ABORTED by run.latency.p99 < 50.0ms (abortOnFail) after 1.0 s';
    expect(renderSummary(r)).toContain(line);
    expect(renderMarkdown(r)).toContain(`> ${line}`);
    expect(renderHtml(r, ASSETS)).toContain(line.replace('<', '&lt;'));
  });

  it('a run whose answers were mostly 429s says it measured the limiter', () => {
    const base = passing();
    const r: Report = { ...base, slo: { ...base.slo, good: 999, bad: 0, excluded: 64_726 }, rateLimit: { ...base.rateLimit, responses429: 64_726 } };
    const note = '98.5 % of requests were rate-limited: the run measured the limiter, not the service';
    expect(renderSummary(r)).toContain(note);
    expect(renderMarkdown(r)).toContain(note);
    expect(renderSummary(passing())).not.toContain('rate-limited: the run measured');
  });
});
