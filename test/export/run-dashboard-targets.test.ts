/**
 * The run dashboard with two targets in one Prometheus: promtool evaluates its panel queries over
 * series whose figures are known exactly (staging: 1 request/s, 10 % bad, every request between
 * 0.1 and 1 s; production: 10 requests/s, none bad, every request under 0.1 s). Each target keeps
 * its own rate, availability and p99, whether it is chosen alone or with the other ("All").
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDashboards } from '../../src/slo/grafana-dashboards.js';
import { RUN_METRICS } from '../../src/slo/metric-names.js';
import { binaryGate } from './helpers/binaries.js';
import { panelExprs } from './helpers/prometheus.js';

const gate = binaryGate(['promtool']);
const m = RUN_METRICS;

/** Per minute: requests, bad SLI events, requests at or under 0.1 s. */
const TARGETS = {
  staging: { perMin: 60, badPerMin: 6, fastPerMin: 0 },
  production: { perMin: 600, badPerMin: 0, fastPerMin: 600 },
} as const;

function inputSeries(): { series: string; values: string }[] {
  return Object.entries(TARGETS).flatMap(([target, t]) => {
    const l = `target="${target}",scenario="mix",tier="pro",operation="run"`;
    return [
      { series: `${m.requests.name}{${l},outcome="ok",code="none"}`, values: `0+${t.perMin}x20` },
      { series: `${m.sliEvents.name}{${l},sli="good"}`, values: `0+${t.perMin - t.badPerMin}x20` },
      { series: `${m.sliEvents.name}{${l},sli="bad"}`, values: `0+${t.badPerMin}x20` },
      { series: `${m.requestDuration.name}_bucket{${l},le="0.1"}`, values: `0+${t.fastPerMin}x20` },
      { series: `${m.requestDuration.name}_bucket{${l},le="1"}`, values: `0+${t.perMin}x20` },
      { series: `${m.requestDuration.name}_bucket{${l},le="+Inf"}`, values: `0+${t.perMin}x20` },
    ];
  });
}

/** What each target's panel reads: its own figures, never the other's mixed in. */
const EXPECTED: Record<string, (t: (typeof TARGETS)[keyof typeof TARGETS]) => number> = {
  'Request rate': (t) => t.perMin / 60,
  'Availability (time range)': (t) => 1 - t.badPerMin / t.perMin,
  // p99 by linear interpolation in the bucket holding it: (0.1, 1] for staging, (0, 0.1] for production.
  'Latency from intended start': (t) => (t.fastPerMin === 0 ? 0.1 + 0.99 * 0.9 : 0.099),
};

/** The panel's query with the variables Grafana would fill in: `target` chosen, the others "All". */
function queries(chosen: string, exprs: readonly { title: string; expr: string }[]) {
  return Object.keys(EXPECTED).map((title) => {
    // The latency panel's last query is its p99.
    const expr = exprs.filter((p) => p.title === title).at(-1)?.expr ?? '';
    expect(expr, title).not.toBe('');
    return {
      title,
      expr: expr
        .replaceAll('$__rate_interval', '5m')
        .replaceAll('$__range', '10m')
        .replaceAll('$target', chosen)
        .replace(/\$(?!__)([A-Za-z_]\w*)\b/g, '.*'),
    };
  });
}

describe.skipIf(gate.skip)('run dashboard, two targets in one Prometheus (promtool)', () => {
  let dir = '';
  beforeAll(() => {
    gate.assertPresent();
    dir = mkdtempSync(join(tmpdir(), 'flowgauge-run-targets-'));
  });
  afterAll(() => {
    if (dir !== '') rmSync(dir, { recursive: true, force: true });
  });

  function promtoolTest(exprs: readonly { title: string; expr: string }[]) {
    const cases = [
      { chosen: 'staging', targets: ['staging'] as const },
      { chosen: '.*', targets: ['staging', 'production'] as const },
    ];
    const file = join(dir, 'run-dashboard.test.yml');
    writeFileSync(
      file,
      stringify({
        rule_files: [],
        evaluation_interval: '1m',
        tests: [
          {
            interval: '1m',
            input_series: inputSeries(),
            promql_expr_test: cases.flatMap(({ chosen, targets }) =>
              queries(chosen, exprs).map(({ title, expr }) => ({
                expr,
                eval_time: '10m',
                exp_samples: targets.map((target) => ({ labels: `{target="${target}"}`, value: (EXPECTED[title] as (t: (typeof TARGETS)[typeof target]) => number)(TARGETS[target]) })),
              })),
            ),
          },
        ],
      }),
    );
    const r = spawnSync('promtool', ['test', 'rules', file], { encoding: 'utf8', timeout: 60_000 });
    return { status: r.status, output: `${r.stdout}${r.stderr}` };
  }

  it('gives each target its own request rate, availability and p99, chosen alone or with the other', () => {
    const r = promtoolTest(panelExprs(generateDashboards().run));
    expect(r.output).toContain('SUCCESS');
    expect(r.status).toBe(0);
  });

  it('can fail: the same panels summed across targets (as they were) mix production into staging', () => {
    const summed = panelExprs(generateDashboards().run).map((p) => ({
      title: p.title,
      expr: p.expr
        .replaceAll('target=~"$target",', '')
        .replaceAll('by (target) ', '')
        .replaceAll('by (target, ', 'by (')
        .replaceAll(', target', ''),
    }));
    expect(summed.map((p) => p.expr).join('\n')).not.toContain('target');
    const r = promtoolTest(summed);
    expect(r.status).not.toBe(0);
    // Summed, staging's 1 request/s reads as both targets' 11.
    expect(r.output).toMatch(/exp: \{target="staging"\} 1E\+00\s+got: \{\} 1\.1E\+01/);
    // and its 90 % availability as 99.1 %.
    expect(r.output).toMatch(/exp: \{target="staging"\} 9E-01\s+got: \{\} 9\.909/);
  });
});
