/**
 * `flowgauge slo rules|dashboards`. The command-line tests run `main` in-process, so they
 * need `sloCommand` registered in src/cli/commands/index.ts.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { parseLatencyObjectives, sloOptionsFromArgs } from '../../src/cli/commands/slo.js';
import { parseObjective } from '../../src/cli/objective.js';
import { UsageError } from '../../src/cli/context.js';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { DASHBOARD_FILES, generateDashboards, renderDashboardJson, renderDashboardsConfigMap } from '../../src/slo/grafana-dashboards.js';
import { renderPrometheusRuleYaml, toPrometheusRule } from '../../src/slo/prometheus-rule-resource.js';
import { generatePrometheusRules, renderRulesYaml } from '../../src/slo/prometheus-rules.js';

const ROOT = resolve(import.meta.dirname, '../..');
const dirs: string[] = [];
const tmp = () => {
  const d = mkdtempSync(join(tmpdir(), 'flowgauge-slo-cli-'));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('slo option parsing', () => {
  it('reads an objective as a percentage, a percentage with %, or a ratio', () => {
    expect(['99.9', '99.9%', '0.999', ' 99.95 % ', '95', '0.5'].map(parseObjective)).toEqual([0.999, 0.999, 0.999, 0.9995, 0.95, 0.5]);
    // A number from 1 up is a percentage.
    expect(parseObjective('1')).toBe(0.01);
    expect(['100', '100%', '0', '-5', 'abc', '99.9%%', ''].map(parseObjective)).toEqual(Array(7).fill(undefined));
  });

  it('reads latency objectives with an optional objective each', () => {
    expect(parseLatencyObjectives('run=2s, stream.ttft=500ms@99%,getRun=250@95', 0.999)).toEqual([
      { operation: 'run', thresholdS: 2, objective: 0.999 },
      { operation: 'stream.ttft', thresholdS: 0.5, objective: 0.99 },
      { operation: 'getRun', thresholdS: 0.25, objective: 0.95 },
    ]);
    expect(() => parseLatencyObjectives('run', 0.999)).toThrow(UsageError);
    expect(() => parseLatencyObjectives('run=fast', 0.999)).toThrow(/duration/);
    expect(() => parseLatencyObjectives('run=2s@200', 0.999)).toThrow(/objective/);
  });

  it('turns flags into generator options and names what is allowed when they are wrong', () => {
    expect(sloOptionsFromArgs({ objective: '99.5%', period: '28d' })).toEqual({ objective: 0.995, period: '28d', latencyObjectives: [] });
    expect(() => sloOptionsFromArgs({ objective: 'high', period: '30d' })).toThrow(/99\.9%/);
    expect(() => sloOptionsFromArgs({ objective: '99.9', period: 'monthly' })).toThrow(/--period .*30d/);
    expect(() => sloOptionsFromArgs({ objective: '99.9', period: '30d', latency: 'warp=1s' })).toThrow(/stream\.ttft/);
    expect(() => sloOptionsFromArgs({ objective: '99.9', period: '30d', latency: 'warp=1s' })).toThrow(UsageError);
  });
});

describe('flowgauge slo (via main)', () => {
  it('slo rules prints the default rules, identical to the deployed file', async () => {
    const io = memoryIo();
    expect(await main(['slo', 'rules'], io)).toBe(0);
    expect(io.out()).toBe(renderRulesYaml(generatePrometheusRules({ objective: 0.999, period: '30d' })));
    expect(io.out()).toBe(readFileSync(join(ROOT, 'deploy/prometheus/rules/flowgauge-slo.rules.yml'), 'utf8'));
  });

  it('slo rules honours --objective, --period and --latency, and writes --out', async () => {
    const dir = tmp();
    const io = memoryIo({ cwd: dir });
    const code = await main(['slo', 'rules', '--objective', '99.5%', '--period', '28d', '--latency', 'run=2s@99', '--out', 'rules/slo.yml'], io);
    expect(code).toBe(0);
    // 16 probe + 16 load availability + 16 latency records; the 10 probe alerts (no load alerts by default).
    expect(io.out()).toMatch(/^wrote .*slo\.yml \(48 recording rules, 10 alerts\)\n$/);
    const text = readFileSync(join(dir, 'rules/slo.yml'), 'utf8');
    const file = parse(text) as { groups: { rules: { record?: string; expr: string }[] }[] };
    const exprs = file.groups.flatMap((g) => g.rules.map((r) => r.expr)).join('\n');
    expect(exprs).toContain('> 0.072');
    expect(exprs).toContain('[28d]');
    expect(exprs).toContain('le=~"2|2.0"');
  });

  it('slo rules --load-alerts adds load alerts at severity info; probe flags reach the probe alerts', async () => {
    const io = memoryIo();
    expect(await main(['slo', 'rules', '--load-alerts', '--probe-interval', '30s', '--probe-down-for', '10m', '--cert-warning', '21d', '--cert-critical', '7d'], io)).toBe(0);
    expect(io.out()).toBe(
      renderRulesYaml(
        generatePrometheusRules({
          objective: 0.999,
          period: '30d',
          latencyObjectives: [],
          loadAlerts: true,
          probeInterval: '30s',
          probeDownFor: '10m',
          certExpiryWarning: '21d',
          certExpiryCritical: '7d',
        }),
      ),
    );
    expect(io.out()).toContain('severity: info');
    expect(io.out()).toContain('time() - flowgauge_probe_last_run_timestamp_seconds > 60');
  });

  it('slo rules --format prometheusrule writes the PrometheusRule, identical to the deployed one, with metadata from flags', async () => {
    const io = memoryIo();
    expect(await main(['slo', 'rules', '--format', 'prometheusrule'], io)).toBe(0);
    expect(io.out()).toBe(readFileSync(join(ROOT, 'deploy/kubernetes/flowgauge-prometheusrule.yaml'), 'utf8'));
    const io2 = memoryIo();
    const args = ['slo', 'rules', '--format', 'prometheusrule', '--name', 'slo', '--namespace', 'monitoring', '--label', 'release=kps', '--label', 'team=sre'];
    expect(await main(args, io2)).toBe(0);
    expect(io2.out()).toBe(
      renderPrometheusRuleYaml(
        toPrometheusRule(generatePrometheusRules({ objective: 0.999, period: '30d' }), { name: 'slo', namespace: 'monitoring', labels: { release: 'kps', team: 'sre' } }),
      ),
    );
  });

  it('slo rules refuses bad probe and resource flags with exit 2, naming the flag', async () => {
    const cases: [string[], RegExp][] = [
      [['--probe-interval', 'often'], /--probe-interval must be a whole duration/],
      [['--cert-warning', '2d', '--cert-critical', '3d'], /must be shorter than the warning/],
      [['--format', 'prometheusrule', '--label', 'release'], /--label "release" is not KEY=VALUE/],
      [['--format', 'prometheusrule', '--name', 'Not A Name'], /DNS subdomain/],
      [['--namespace', 'monitoring'], /give them with --format prometheusrule/],
    ];
    for (const [flags, message] of cases) {
      const io = memoryIo();
      expect(await main(['slo', 'rules', ...flags], io), flags.join(' ')).toBe(2);
      expect(io.err()).toMatch(message);
    }
  });

  it('slo rules warns when a latency threshold is not a default bucket bound', async () => {
    const io = memoryIo();
    expect(await main(['slo', 'rules', '--latency', 'run=1.7s'], io)).toBe(0);
    expect(io.err()).toMatch(/warning: run threshold 1\.7s is not a default histogram bucket/);
  });

  it('bad flags exit 2 with a message naming what is allowed', async () => {
    const io = memoryIo();
    expect(await main(['slo', 'rules', '--objective', 'lots'], io)).toBe(2);
    expect(io.err()).toContain('99.9%');
    const io2 = memoryIo();
    expect(await main(['slo', 'rules', '--latency', 'run'], io2)).toBe(2);
    expect(io2.err()).toContain('TARGET=DURATION');
    const io3 = memoryIo();
    expect(await main(['slo', 'bogus'], io3)).toBe(2);
    const io4 = memoryIo();
    expect(await main(['slo'], io4)).toBe(2);
    expect(io4.err()).toContain('rules, dashboards or status');
  });

  it('slo dashboards --out-dir writes the three dashboards, identical to the deployed ones', async () => {
    const dir = tmp();
    const io = memoryIo({ cwd: dir });
    expect(await main(['slo', 'dashboards', '--out-dir', 'grafana'], io)).toBe(0);
    expect(readdirSync(join(dir, 'grafana')).sort()).toEqual(Object.values(DASHBOARD_FILES).sort());
    for (const f of Object.values(DASHBOARD_FILES)) {
      expect(readFileSync(join(dir, 'grafana', f), 'utf8')).toBe(readFileSync(join(ROOT, 'deploy/grafana', f), 'utf8'));
    }
  });

  it('slo dashboards --format configmap writes the sidecar ConfigMaps, identical to the deployed ones', async () => {
    const dir = tmp();
    const io = memoryIo({ cwd: dir });
    expect(await main(['slo', 'dashboards', '--format', 'configmap', '--out', 'cm.yaml'], io)).toBe(0);
    expect(io.out()).toMatch(/^wrote .*cm\.yaml \(3 ConfigMaps\)\n$/);
    expect(readFileSync(join(dir, 'cm.yaml'), 'utf8')).toBe(readFileSync(join(ROOT, 'deploy/kubernetes/flowgauge-dashboards-configmap.yaml'), 'utf8'));
    const one = memoryIo();
    expect(await main(['slo', 'dashboards', '--format', 'configmap', '--only', 'uptime', '--namespace', 'monitoring'], one)).toBe(0);
    expect(one.out()).toBe(renderDashboardsConfigMap({ uptime: renderDashboardJson(generateDashboards().uptime) }, 'monitoring'));
    const bad = memoryIo();
    expect(await main(['slo', 'dashboards', '--format', 'configmap', '--out-dir', 'x'], bad)).toBe(2);
    expect(bad.err()).toContain('--out-dir is for --format json');
  });

  it('slo dashboards --only prints one importable dashboard', async () => {
    const io = memoryIo();
    expect(await main(['slo', 'dashboards', '--only', 'uptime'], io)).toBe(0);
    expect(io.out()).toBe(renderDashboardJson(generateDashboards().uptime));
    const all = memoryIo();
    expect(await main(['slo', 'dashboards'], all)).toBe(0);
    expect(Object.keys(JSON.parse(all.out()) as object).sort()).toEqual(Object.values(DASHBOARD_FILES).sort());
  });
});

describe('start-up cost', () => {
  /** How many modules of the Grafana SDK (CommonJS, so in the module cache) loading `entry` pulls in. */
  function sdkModulesLoadedBy(entry: string): number {
    const script = `import(${JSON.stringify(entry)}).then(() => { const M = require('node:module'); console.log(Object.keys(M._cache).filter((k) => k.includes('grafana-foundation-sdk')).length); })`;
    const r = spawnSync(process.execPath, ['--import', 'tsx', '-e', script], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
    expect(r.stderr).toBe('');
    return Number(r.stdout.trim());
  }

  it('the CLI loads the Grafana SDK only when slo dashboards builds dashboards, not for every command', () => {
    expect(sdkModulesLoadedBy('./src/cli/main.ts')).toBe(0);
    expect(sdkModulesLoadedBy('./src/slo/grafana-dashboards.ts')).toBeGreaterThan(0);
  }, 120_000);
});
