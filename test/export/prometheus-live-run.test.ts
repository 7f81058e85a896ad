/**
 * A real Prometheus scrapes a live `flowgauge run --metrics-port` (the CLI as its own process:
 * a mix scenario beside a journey with a check) against the reference service with an injected
 * 503 ratio. The load recording rules, every query of the run dashboard (panels, the run
 * annotation, the variables) and the load section of the SLO dashboard answer with data from
 * real traffic, no alert fires for it (a load test never pages), and the error ratio Prometheus
 * computes agrees with what report.json says afterwards.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDashboards, type GrafanaDashboard } from '../../src/slo/grafana-dashboards.js';
import { SLI_SOURCE } from '../../src/slo/metric-names.js';
import { generatePrometheusRules, renderRulesYaml, type RecordingRule } from '../../src/slo/prometheus-rules.js';
import { startReferenceService, type ReferenceService } from '../../src/target/index.js';
import { binaryGate } from './helpers/binaries.js';
import { annotationExprs, freePort, panelExprs, startPrometheus, substitute, variableExprs, type TestPrometheus } from './helpers/prometheus.js';
import { CLI_BIN } from '../reliability/cli-process.js';

const gate = binaryGate(['prometheus']);
const BIN = CLI_BIN;
const TOKEN = 'fg_live_metrics_token';
const OPTIONS = { objective: 0.999, period: '30d' } as const;

/** The SLO dashboard's panels from its load-run row on (the probe row reads probe series, which a load run has none of). */
function loadSection(d: GrafanaDashboard): GrafanaDashboard {
  const panels = d.panels ?? [];
  const row = panels.findIndex((p) => p.type === 'row' && (p.title ?? '').includes(`"${SLI_SOURCE.load}"`));
  if (row < 0) throw new Error('the SLO dashboard has no load-run row');
  return { ...d, panels: panels.slice(row + 1) };
}

describe.skipIf(gate.skip)('real Prometheus scraping a live flowgauge run', () => {
  let dir = '';
  let service: ReferenceService | undefined;
  let prom: TestPrometheus | undefined;
  let run: Promise<{ code: number | null; stderr: string }> | undefined;

  beforeAll(async () => {
    gate.assertPresent();
    dir = mkdtempSync(join(tmpdir(), 'fg-live-prom-'));
    service = await startReferenceService({
      latency: { ttftMs: 5, itlMs: 1, tokens: { min: 4, max: 8 } },
      tokens: { [TOKEN]: { account: 'acct_b', tier: 'pro' } },
      faults: { errors: { listFlows: { rate: 0.1, status: 503 } } },
    });
    const scenario = join(dir, 'live.json');
    writeFileSync(
      scenario,
      JSON.stringify({
        name: 'live-metrics',
        scenarios: {
          mix: {
            tier: 'pro',
            load: { executor: 'constant-arrival-rate', rate: '32/s', duration: '14s' },
            mix: [
              { op: 'listFlows', weight: 2 },
              { op: 'run', weight: 1 },
              { op: 'stream', weight: 1 },
            ],
          },
          journey: {
            tier: 'pro',
            load: { rate: '4/s', duration: '14s' },
            steps: [
              { op: 'listFlows', name: 'list', check: { 'flows listed': { path: 'total', min: 1 } } },
              { op: 'run', input: 'hello' },
            ],
          },
        },
        // The service fails some requests on purpose; this test reads metrics, not a verdict.
        thresholds: {},
      }),
    );
    const metricsPort = await freePort();
    prom = await startPrometheus({ targets: [`127.0.0.1:${metricsPort}`], rulesYaml: renderRulesYaml(generatePrometheusRules(OPTIONS)) });
    const child = spawn(
      process.execPath,
      [BIN, 'run', scenario, '--base-url', service.baseUrl, '--token', TOKEN, '--metrics-port', String(metricsPort), '--out', join(dir, 'out'), '--quiet'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stderr = '';
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    run = new Promise((done) => child.on('exit', (code) => done({ code, stderr })));
    await prom.targetUp();
  }, 40_000);

  afterAll(async () => {
    await run;
    await prom?.stop();
    await service?.close();
    if (dir !== '') rmSync(dir, { recursive: true, force: true });
  });

  it('answers the load rules and the run and SLO dashboards from live traffic, alerts nothing, agrees with report.json', async () => {
    const p = prom as TestPrometheus;
    const recorded = generatePrometheusRules(OPTIONS)
      .groups.flatMap((g) => g.rules)
      .filter((r): r is RecordingRule => 'record' in r && r.labels?.[SLI_SOURCE.label] === SLI_SOURCE.load)
      .map((r) => ({ title: r.record, expr: r.record }));
    const { run: runBoard, slo } = generateDashboards(OPTIONS);
    // shard exists only on series a sharded run pushes; this run is scraped.
    const variables = variableExprs(runBoard).filter((v) => v.name !== 'shard');
    // Grafana runs annotation queries over the dashboard's time range: any point in it counts.
    const annotations = annotationExprs(runBoard).map((a) => ({ ...a, expr: `max_over_time((${a.expr})[5m:1s])` }));
    const panels = [...panelExprs(runBoard), ...annotations, ...variables, ...panelExprs(loadSection(slo))].map((q) => ({
      title: q.title,
      expr: substitute(q.expr),
    }));
    expect(panels.length).toBeGreaterThan(40);
    let empty: string[] = [];
    await p.until(
      async () => {
        empty = [];
        for (const q of [...recorded, ...panels]) if ((await p.query(q.expr)).length === 0) empty.push(`${q.title}: ${q.expr}`);
        return empty.length === 0;
      },
      () => `${empty.length} queries returned no data:\n  ${empty.join('\n  ')}`,
    );
    expect(empty).toEqual([]);
    // The scenario variable offers both scenarios (their requests) and the run (its run-wide series).
    const scenarioVar = variableExprs(runBoard).find((v) => v.name === 'scenario');
    const scenarios = (await p.query(substitute(scenarioVar?.expr ?? ''))) as { metric: { scenario: string } }[];
    expect(scenarios.map((x) => x.metric.scenario).sort()).toEqual(['journey', 'live-metrics', 'mix']);
    // 5 % bad is far above the 0.1 % budget, yet a load run raises no alert.
    expect(await p.query('ALERTS')).toEqual([]);

    // Once the run has exited, Prometheus's last scrape of the SLI counters against the run's own
    // report: they differ only by what completed after the final scrape (at most a second of
    // 40 requests/s out of 560). last_over_time skips the staleness markers of the gone target.
    const { code, stderr } = await (run as Promise<{ code: number | null; stderr: string }>);
    expect(stderr).not.toContain(TOKEN);
    expect(code).toBe(0);
    const [sample] = (await p.query(
      'sum(last_over_time(flowgauge_sli_events_total{sli="bad"}[5m])) / sum(last_over_time(flowgauge_sli_events_total{sli=~"good|bad"}[5m]))',
    )) as { value: [number, string] }[];
    const promRatio = Number(sample?.value[1]);
    const report = JSON.parse(readFileSync(join(dir, 'out', 'report.json'), 'utf8')) as { slo: { availability: number } };
    // 10 % of half the traffic fails: about 5 % bad.
    expect(promRatio).toBeGreaterThan(0.02);
    expect(promRatio).toBeLessThan(0.09);
    expect(Math.abs(promRatio - (1 - report.slo.availability))).toBeLessThan(0.01);
  }, 45_000);
});
