/** The end-of-run summary reports what the run's extras found: following, audit. */
import { afterEach, describe, expect, it } from 'vitest';
import { loadHtmlAssets } from '../../src/cli/report-formats.js';
import { renderHtml } from '../../src/report/html.js';
import { renderSummary } from '../../src/report/index.js';
import { runAgainstService } from './helpers.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

/** A listFlows-only run with no extras. */
async function plainRun(duration: string): ReturnType<typeof runAgainstService> {
  const r = await runAgainstService({
    name: 'plain',
    tier: 'pro',
    load: { executor: 'constant-arrival-rate', rate: '20/s', duration },
    mix: [{ op: 'listFlows', weight: 1 }],
  });
  cleanups.push(r.close);
  return r;
}

describe('summary of a run with extras', () => {
  it('says how async runs were followed and whether usage analytics agree', async () => {
    const r = await runAgainstService(
      {
        name: 'extras',
        tier: 'pro',
        load: { executor: 'constant-arrival-rate', rate: '20/s', duration: '500ms' },
        mix: [{ op: 'run', weight: 1 }],
      },
      // Runs last ≥ 100 ms: one that a busy machine answers late must still answer `running`
      // (the service reports the status at the time it writes the answer), or it is not followed.
      { service: { runMode: 'async', latency: { ttftMs: 100, itlMs: 1, tokens: { min: 2, max: 4 } } }, run: { audit: true } },
    );
    cleanups.push(r.close);
    const { report } = r.outcome;
    expect(report.asyncRuns?.followed.run).toBe(10);
    expect(report.audit?.usage?.exact).toBe(true);
    const text = renderSummary(report);
    expect(text).toMatch(/^async {3}10 followed \(10 runs, 0 triggers\); completion p50 /m);
    expect(text).toMatch(/^audit {3}usage analytics agree: 10 runs, \d+ tokens$/m);
    expect(text).not.toMatch(/^notify/m);
    const html = renderHtml(report, await loadHtmlAssets());
    expect(html).toContain('<dt>followed</dt><dd>10 runs, 0 triggers (not followed: 0 over the cap, 0 after the stop)</dd>');
    expect(html).toContain('<span class="badge pass">the service agrees with the client exactly</span>');
    expect(html).toMatch(/<td>client<\/td><td class="num">10<\/td>/);
    expect(html).not.toContain('<section id="notifications">');
  });

  it('escapes what a session history sent back, in report.html', async () => {
    const r = await plainRun('100ms');
    const report = {
      ...r.outcome.report,
      audit: {
        sessions: {
          sessions: 1, runs: 2, checked: 1, inOrder: 0, alternating: 1, countMatches: 1, concurrent: 0,
          problems: [{ sessionId: 'sess_<b>', check: 'order' as const, expected: 'input <script>1</script>', got: 'x' }],
        },
      },
    };
    const html = renderHtml(report, await loadHtmlAssets());
    expect(html).toContain('<section id="audit">');
    expect(html).toContain('input &lt;script&gt;1&lt;/script&gt;');
    expect(html).not.toContain('<script>1</script>');
    expect(html).not.toContain('<h3>Usage analytics</h3>');
  });

  it('prints no extras lines when the run had none', async () => {
    const r = await plainRun('200ms');
    expect(renderSummary(r.outcome.report)).not.toMatch(/^(async|notify|audit) /m);
  });
});
