/**
 * deploy/ holds exactly what the generators produce with the defaults, so what operators
 * import is what the code and its tests describe.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { DASHBOARD_FILES, generateDashboards, renderDashboardJson } from '../../src/slo/grafana-dashboards.js';
import { ALERT_NAMES, ALL_METRICS, RECORDING_RULES } from '../../src/slo/metric-names.js';
import { generatePrometheusRules, renderRulesYaml } from '../../src/slo/prometheus-rules.js';

const ROOT = resolve(import.meta.dirname, '../..');
const read = (p: string) => readFileSync(resolve(ROOT, p), 'utf8');
const REGEN_RULES = 'regenerate with: node bin/flowgauge.mjs slo rules --out deploy/prometheus/rules/flowgauge-slo.rules.yml';
const REGEN_DASHBOARDS = 'regenerate with: node bin/flowgauge.mjs slo dashboards --out-dir deploy/grafana';

describe('deploy/ files', () => {
  it('the Prometheus rules file is what `slo rules` generates with the defaults', () => {
    const expected = renderRulesYaml(generatePrometheusRules({ objective: 0.999, period: '30d' }));
    expect(read('deploy/prometheus/rules/flowgauge-slo.rules.yml'), REGEN_RULES).toBe(expected);
  });

  it('the Grafana dashboards are what `slo dashboards` generates with the defaults', () => {
    const d = generateDashboards();
    for (const k of ['run', 'slo', 'uptime'] as const) {
      expect(read(`deploy/grafana/${DASHBOARD_FILES[k]}`), `${DASHBOARD_FILES[k]}: ${REGEN_DASHBOARDS}`).toBe(renderDashboardJson(d[k]));
    }
  });

  it('prometheus.yml scrapes localhost:9464 every 15 s and loads the rules directory', () => {
    const cfg = parse(read('deploy/prometheus/prometheus.yml')) as {
      rule_files: string[];
      scrape_configs: { job_name: string; scrape_interval: string; static_configs: { targets: string[] }[] }[];
    };
    expect(cfg.rule_files).toEqual(['rules/*.rules.yml']);
    const job = cfg.scrape_configs.find((j) => j.job_name === 'flowgauge');
    expect(job?.scrape_interval).toBe('15s');
    expect(job?.static_configs[0]?.targets).toEqual(['localhost:9464']);
  });

  it('the promtool test file tests the deployed rules file', () => {
    const t = parse(read('deploy/prometheus/tests/flowgauge-slo.test.yml')) as { rule_files: string[]; tests: unknown[] };
    expect(t.rule_files).toEqual(['../rules/flowgauge-slo.rules.yml']);
    expect(t.tests.length).toBeGreaterThanOrEqual(5);
  });

  it('docs/metrics.md documents every metric, recording rule and alert', () => {
    const doc = read('docs/metrics.md');
    for (const m of ALL_METRICS) expect(doc, m.name).toContain(`\`${m.name}\``);
    for (const f of Object.values(RECORDING_RULES)) expect(doc).toContain(`\`${f('<window>')}\``);
    for (const a of Object.values(ALERT_NAMES)) expect(doc).toContain(`\`${a}\``);
  });
});
