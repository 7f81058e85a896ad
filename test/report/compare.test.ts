import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { memoryIo } from '../../src/cli/io.js';
import { compareReports, parseRegressionRules, renderComparison } from '../../src/report/compare.js';
import type { RegressionRule } from '../../src/report/compare.js';
import type { Report } from '../../src/report/model.js';
import { fixtureReport } from './fixture.js';

function rules(text: string): RegressionRule[] {
  const r = parseRegressionRules(text);
  if (!r.ok) throw new Error(r.error);
  return r.rules;
}

/** The fixture with run's p99 and availability changed, and tokens/s scaled. */
function variant(o: { runP99?: number; availability?: number; tokensPerSP50?: number; dropRun?: boolean }): Report {
  const base = fixtureReport();
  const run = base.ops.run;
  if (run === undefined) throw new Error('fixture has runs');
  const ops = { ...base.ops, run: { ...run, latencyMs: { ...run.latencyMs, p99: o.runP99 ?? run.latencyMs.p99 } } };
  if (o.dropRun === true) delete (ops as Partial<typeof ops>).run;
  return {
    ...base,
    ops,
    slo: { ...base.slo, availability: o.availability ?? base.slo.availability },
    stream: { ...base.stream, tokensPerS: { ...base.stream.tokensPerS, p50: o.tokensPerSP50 ?? base.stream.tokensPerS.p50 } },
  };
}

describe('parseRegressionRules', () => {
  it('reads %, pp and ms rules for threshold-grammar keys', () => {
    expect(rules(' run.latency.p99=10% , availability=0.05pp,stream.ttft.p95=50ms').map((r) => [r.key, r.kind, r.amount])).toEqual([
      ['run.latency.p99', 'percent', 10],
      ['availability', 'pp', 0.05],
      ['stream.ttft.p95', 'ms', 50],
    ]);
    expect(rules('')).toEqual([]);
  });

  it('rejects what does not fit, naming the rule and the grammar', () => {
    const bad = (s: string): string => {
      const r = parseRegressionRules(s);
      return r.ok ? 'ok' : r.error;
    };
    expect(bad('run.latency.p99')).toMatch(/rule "run.latency.p99": no "="; expected comma-separated <metric>=<N>%/);
    expect(bad('run.latency.p42=10%')).toMatch(/"run.latency.p42" is not a metric key/);
    expect(bad('run.latency.p99=ten%')).toMatch(/must be a number with %, pp or ms/);
    expect(bad('run.latency.p99=1pp')).toMatch(/pp \(percentage points\) applies to ratios/);
    expect(bad('availability=5ms')).toMatch(/ms applies to latencies, not availability/);
    expect(bad('availability=0.05pp,x=1%')).toMatch(/"x" is not a metric key/);
  });
});

describe('compareReports', () => {
  const base = fixtureReport();
  const p99 = base.ops.run?.latencyMs.p99 ?? 0;

  it('flags a relative latency increase beyond the rule, not one within it', () => {
    const r = rules('run.latency.p99=10%');
    expect(compareReports(base, variant({ runP99: p99 * 1.09 }), r).regressions).toHaveLength(0);
    const c = compareReports(base, variant({ runP99: p99 * 1.2 }), r);
    expect(c.regressions.map((x) => x.key)).toEqual(['run.latency.p99']);
    // Getting faster is never a regression.
    expect(compareReports(base, variant({ runP99: p99 / 2 }), r).regressions).toHaveLength(0);
  });

  it('judges absolute ms, percentage points and rates in their worse direction', () => {
    expect(compareReports(base, variant({ runP99: p99 + 4 }), rules('run.latency.p99=5ms')).regressions).toHaveLength(0);
    // +4 ms is past a 3 ms rule but within how much the fixture's per-second p99 varies on its own
    // (±4.7 ms; the last seconds' 429s, once read as 2 ms answers, no longer widen it).
    const noisy = compareReports(base, variant({ runP99: p99 + 4 }), rules('run.latency.p99=3ms'));
    expect(noisy.regressions).toHaveLength(0);
    expect(noisy.inconclusive[0]?.note).toMatch(/^inconclusive: within the runs' own spread over time \(±\d+\.\dms\)$/);
    expect(compareReports(base, variant({ runP99: p99 + 20 }), rules('run.latency.p99=5ms')).regressions).toHaveLength(1);
    const avail = base.slo.availability ?? 0;
    expect(compareReports(base, variant({ availability: avail - 0.0004 }), rules('availability=0.05pp')).regressions).toHaveLength(0);
    // 0.06pp on about a thousand requests is inside their binomial noise (±0.4pp): inconclusive, not a regression.
    const small = compareReports(base, variant({ availability: avail - 0.0006 }), rules('availability=0.05pp'));
    expect(small.regressions).toHaveLength(0);
    expect(small.inconclusive.map((r) => r.note)).toEqual([expect.stringMatching(/^inconclusive: within the samples' binomial noise/)]);
    expect(compareReports(base, variant({ availability: avail - 0.02 }), rules('availability=0.05pp')).regressions).toHaveLength(1);
    expect(compareReports(base, variant({ availability: avail - 0.01 }), rules('availability=5%')).regressions).toHaveLength(0);
    const tps = base.stream.tokensPerS.p50;
    expect(compareReports(base, variant({ tokensPerSP50: tps * 0.8 }), rules('stream.tokensPerS.p50=10%')).regressions).toHaveLength(1);
    expect(compareReports(base, variant({ tokensPerSP50: tps * 1.5 }), rules('stream.tokensPerS.p50=10%')).regressions).toHaveLength(0);
  });

  it('fails a rule whose metric the current run lacks, skips one the baseline lacks', () => {
    const c = compareReports(base, variant({ dropRun: true }), rules('run.latency.p99=10%'));
    expect(c.regressions[0]?.note).toBe('not observed in the current run');
    const d = compareReports(variant({ dropRun: true }), base, rules('run.latency.p99=10%'));
    expect(d.regressions).toHaveLength(0);
    expect(d.rows.find((r) => r.rule !== undefined)?.note).toBe('not in the baseline');
  });

  it('lists the standard metrics side by side with changes', () => {
    const c = compareReports(base, variant({ runP99: p99 * 1.2 }), rules('run.latency.p99=10%'));
    const keys = c.rows.map((r) => r.key);
    for (const k of ['run.latency.p50', 'run.latency.p90', 'run.latency.p99', 'stream.ttft.p50', 'stream.itl.p99', 'availability', 'errors.rate', 'ratelimit.responses429', 'load.achievedRatePerS']) {
      expect(keys).toContain(k);
    }
    const text = renderComparison(c, { baselineName: 'base', currentName: 'cur' });
    expect(text.split('\n')[0]).toMatch(/^metric\s+base\s+cur\s+change\s+samples\s+rule\s+verdict$/);
    const n = base.ops.run?.latencyMs.count ?? 0;
    expect(n).toBeGreaterThan(500);
    expect(text).toMatch(new RegExp(`run\\.latency\\.p99 .*\\(\\+20\\.0%\\)\\s+${n}/${n}\\s+run\\.latency\\.p99=10%\\s+REGRESSION`));
    expect(text).toMatch(/availability\s+99\.8%\s+99\.8%\s+±0pp/);
    expect(text.trimEnd().split('\n').at(-1)).toBe('1 regression: run.latency.p99=10%');
    expect(renderComparison(compareReports(base, base, [])).trimEnd().split('\n').at(-1)).toMatch(/no regression rules given/);
  });
});

describe('flowgauge compare', () => {
  const dir = mkdtempSync(join(tmpdir(), 'fg-compare-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const write = (name: string, r: unknown): string => {
    const p = join(dir, name);
    writeFileSync(p, JSON.stringify(r));
    return p;
  };
  const baseFile = write('base.json', fixtureReport());
  const slowFile = write('slow.json', variant({ runP99: (fixtureReport().ops.run?.latencyMs.p99 ?? 0) * 2 }));

  it('exits 1 on a regression, 0 without, 2 on a bad rule or file', async () => {
    const io1 = memoryIo();
    expect(await main(['compare', baseFile, slowFile, '--max-regression', 'run.latency.p99=10%'], io1)).toBe(1);
    expect(io1.out()).toContain('REGRESSION');
    expect(await main(['compare', baseFile, baseFile, '--max-regression', 'run.latency.p99=10%'], memoryIo())).toBe(0);
    const io2 = memoryIo();
    expect(await main(['compare', baseFile, slowFile, '--max-regression', 'run.latency.p99=10'], io2)).toBe(2);
    expect(io2.err()).toMatch(/<metric>=<N>%/);
    const io3 = memoryIo();
    expect(await main(['compare', baseFile, write('junk.json', { schema: 'flowgauge/report@1' })], io3)).toBe(2);
    expect(io3.err()).toMatch(/junk\.json: not a flowgauge\/report@1 report:\n {2}- \(root\): missing scenario, interrupted, target/);
  });
});
