/** The end-of-run summary reports what the run's extras found: following, audit. */
import { afterEach, describe, expect, it } from 'vitest';
import { renderSummary } from '../../src/report/index.js';
import { runAgainstService } from './helpers.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

describe('summary of a run with extras', () => {
  it('says how async runs were followed and whether usage analytics agree', async () => {
    const r = await runAgainstService(
      {
        name: 'extras',
        tier: 'pro',
        load: { executor: 'constant-arrival-rate', rate: '20/s', duration: '500ms' },
        mix: [{ op: 'run', weight: 1 }],
      },
      { service: { runMode: 'async', latency: { ttftMs: 5, itlMs: 1, tokens: { min: 2, max: 4 } } }, run: { audit: true } },
    );
    cleanups.push(r.close);
    const { report } = r.outcome;
    expect(report.asyncRuns?.followed.run).toBe(10);
    expect(report.audit?.usage?.exact).toBe(true);
    const text = renderSummary(report);
    expect(text).toMatch(/^async {3}10 followed \(10 runs, 0 triggers\); completion p50 /m);
    expect(text).toMatch(/^audit {3}usage analytics agree: 10 runs, \d+ tokens$/m);
    expect(text).not.toMatch(/^notify/m);
  });

  it('prints no extras lines when the run had none', async () => {
    const r = await runAgainstService({
      name: 'plain',
      tier: 'pro',
      load: { executor: 'constant-arrival-rate', rate: '20/s', duration: '200ms' },
      mix: [{ op: 'listFlows', weight: 1 }],
    });
    cleanups.push(r.close);
    expect(renderSummary(r.outcome.report)).not.toMatch(/^(async|notify|audit) /m);
  });
});
