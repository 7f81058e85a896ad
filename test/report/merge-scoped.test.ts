/**
 * Thresholds scoped to one scenario of several (`<scenario>:<metric>`) survive a merge of shard
 * reports: merge reads each key back with the grammar, scope and all, and judges it again on the
 * merged `scenarios.<name>` section (not on the shard's half, not as an unknown key).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../src/api/index.js';
import { mergeReports } from '../../src/report/merge.js';
import { renderMarkdown } from '../../src/report/markdown.js';
import type { Report } from '../../src/report/model.js';
import { renderSummary } from '../../src/report/summary.js';
import { executeRun } from '../../src/run/index.js';
import { planOf, resolveRunPlan } from '../../src/scenario/index.js';
import { startReferenceService, type ReferenceService } from '../../src/target/index.js';

const TOKEN = 'fg_merge_scoped_token';
const TIER = { limitPerMinute: 10_000_000 };
let service: ReferenceService;

beforeAll(async () => {
  service = await startReferenceService({ latency: 'none', tokens: { [TOKEN]: { account: 'acct_ms', tier: TIER } } });
});
afterAll(async () => service.close());

const plan = planOf(
  resolveRunPlan({
    name: 'scoped',
    scenarios: {
      a: { tier: TIER, load: { rate: '20/s', duration: '1s' }, mix: [{ op: 'listFlows' }] },
      b: { tier: TIER, load: { rate: '10/s', duration: '1s' }, mix: [{ op: 'listFlows' }] },
    },
    thresholds: {
      'a:availability': '>=99%',
      // 10 in all: each shard saw 5, so only the merged section holds it.
      'b:listFlows.latency.count': '==10',
      'b:listFlows.latency.p99': '<5s',
      'a:ratelimit.responses429': '==0',
    },
  }),
);

async function shard(index: number): Promise<Report> {
  const client = createClient({ baseUrl: service.baseUrl, token: TOKEN, connections: 4 });
  try {
    const outcome = await executeRun({ scenario: plan, client, target: { baseUrl: service.baseUrl, embedded: true }, shard: { index, count: 2 } });
    return outcome.report;
  } finally {
    await client.close();
  }
}

describe('merge of shard reports with scoped thresholds', () => {
  it('judges each <scenario>: threshold again on the merged scenario, in its unit', async () => {
    const [one, two] = await Promise.all([shard(0), shard(1)]);
    // Each shard judged its own half: b's count is 5 there.
    expect(one.thresholds.find((t) => t.metric === 'b:listFlows.latency.count')?.observed).toBe(5);
    const merged = mergeReports([one, two]);
    const byKey = Object.fromEntries(merged.thresholds.map((t) => [t.metric, t]));
    expect(Object.keys(byKey).sort()).toEqual(['a:availability', 'a:ratelimit.responses429', 'b:listFlows.latency.count', 'b:listFlows.latency.p99']);
    for (const t of merged.thresholds) expect(t.observed, t.metric).not.toBeNull();
    expect(byKey['b:listFlows.latency.count']?.observed).toBe(10);
    expect(byKey['b:listFlows.latency.p99']?.observed).toBe(merged.scenarios?.b?.ops.listFlows?.latencyMs.p99);
    expect(byKey['a:availability']?.observed).toBe(1);
    expect(merged.passed).toBe(true);
    expect(merged.verdict).toBe('PASS');
    // Scoped values are shown in the metric's unit: a ratio as %, a latency as a duration.
    const summary = renderSummary(merged);
    expect(summary).toMatch(/a:availability\s+>= 99%\s+100%/);
    expect(summary).toMatch(/b:listFlows\.latency\.p99\s+< 5(\.00)?s\s+[\d.]+(µs|ms)/);
    expect(renderMarkdown(merged)).toMatch(/a:availability[^\n]*99%/);
    // Merging the merged report alone gives it back, thresholds and all.
    expect(mergeReports([merged]).thresholds).toEqual(merged.thresholds);
  });
});
