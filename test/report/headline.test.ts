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

  it('streams whose tokens all came at once are said not to have been streamed, so ITL passes for nothing', () => {
    const base = passing();
    const note = '7 of 10 streams delivered all their tokens at once: the answer was not streamed to flowgauge (a buffering proxy, or a service that sends it whole), so they are left out of inter-token latency, TPOT and tokens per second';
    const most: Report = { ...base, stream: { ...base.stream, count: 10, deliveredAtOnce: 7 } };
    expect(renderSummary(most)).toContain(note);
    expect(renderMarkdown(most)).toContain(note);
    // A few bunched by a busy client are not the answer's shape; a report from before the count says nothing.
    expect(renderSummary({ ...base, stream: { ...base.stream, count: 10, deliveredAtOnce: 4 } })).not.toContain('tokens at once');
    const { deliveredAtOnce: _absent, ...older } = base.stream;
    expect(renderSummary({ ...base, stream: { ...older, count: 10 } })).not.toContain('tokens at once');
  });

  it('names even one burst, in the summary, report.md and report.html, and what it is left out of', () => {
    const base = passing();
    const one: Report = { ...base, stream: { ...base.stream, count: 300, deliveredAtOnce: 1 } };
    const sentence = '1 of 300 streams delivered all its tokens in one read (a burst: not streamed to flowgauge); left out of inter-token latency, TPOT and tokens per second, which are of the other 299';
    expect(renderSummary(one)).toContain(`bursts  ${sentence}`);
    expect(renderMarkdown(one)).toContain(`${sentence}.`);
    expect(renderHtml(one, ASSETS)).toContain(`<p class="note">${sentence}.</p>`);
    // One burst is no verdict: the headline speaks only when most streams came that way.
    expect(renderSummary(one)).not.toContain('tokens at once');
    expect(renderSummary({ ...base, stream: { ...base.stream, count: 300, deliveredAtOnce: 0 } })).not.toContain('bursts');
  });

  it("429s with evidence of another answerer are said to be someone else's, in every rendering; missing headers alone are not", () => {
    const base = passing();
    const some: Report = { ...base, rateLimit: { ...base.rateLimit, responses429: 40, premature429: 31, headerless429: 31, gateway429: 31 } };
    const note = '31 of the 40 429s carried no X-RateLimit headers where the service\'s answers carry them: something in front of the service (a gateway\'s limit, a proxy) refused them, not the service\'s own limiter';
    expect(renderSummary(some)).toContain(note);
    expect(renderMarkdown(some)).toContain(note);
    expect(renderHtml(some, ASSETS)).toContain(note.replaceAll("'", '&#39;'));
    const one: Report = { ...base, rateLimit: { ...base.rateLimit, responses429: 1, headerless429: 1, gateway429: 1 } };
    expect(renderSummary(one)).toContain('the 429 carried no X-RateLimit headers where the service\'s answers carry them: something in front of the service (a gateway\'s limit, a proxy) refused it,');
    // Another Server on a 429 that has the headers: the other sentence.
    const served: Report = { ...base, rateLimit: { ...base.rateLimit, responses429: 4, headerless429: 0, gateway429: 4 } };
    expect(renderSummary(served)).toContain('all 4 429s came from something in front of the service (another Server or Via');
    // A service that sends no headers at all (Retry-After only): no gateway is said.
    expect(renderSummary({ ...base, rateLimit: { ...base.rateLimit, responses429: 81, headerless429: 81, gateway429: 0 } })).not.toContain('something in front of the service');
    // Reports written before the count existed, and runs whose 429s all had headers, say nothing.
    const { headerless429: _absent, gateway429: _none, ...older } = base.rateLimit;
    expect(renderSummary({ ...base, rateLimit: { ...older, responses429: 5 } })).not.toContain('no X-RateLimit headers');
    expect(renderSummary({ ...base, rateLimit: { ...base.rateLimit, responses429: 5, headerless429: 0 } })).not.toContain('no X-RateLimit headers');
  });
});
