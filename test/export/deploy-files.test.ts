/**
 * deploy/ holds exactly what the generators produce with the defaults, so what operators
 * import is what the code and its tests describe.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { CHECK_NAMES } from '../../src/probe/record.js';
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

/** The documents of a multi-document YAML file, each checked for parse errors. */
function yamlDocs(path: string): K8s[] {
  return parseAllDocuments(read(path)).map((d) => {
    expect(d.errors, path).toEqual([]);
    return d.toJS() as K8s;
  });
}

interface K8s {
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
  // Manifests are checked field by field below; their shape is not worth a type here.
  spec: Record<string, any>;
}

const matches = (selector: Record<string, string>, labels: Record<string, string> = {}): boolean =>
  Object.entries(selector).every(([k, v]) => labels[k] === v);

describe('deploy/kubernetes probe daemon and monitors', () => {
  const daemon = yamlDocs('deploy/kubernetes/probe-daemon.yaml');
  const monitors = yamlDocs('deploy/kubernetes/probe-monitor.yaml');
  const gateway = yamlDocs('deploy/kubernetes/pushgateway.yaml');
  const byKind = (docs: K8s[], kind: string, name?: string): K8s => {
    const d = docs.find((x) => x.kind === kind && (name === undefined || x.metadata.name === name));
    if (d === undefined) throw new Error(`no ${kind} ${name ?? ''}`);
    return d;
  };
  const deployment = byKind(daemon, 'Deployment');
  const pod = deployment.spec.template.spec;
  const container = pod.containers[0];
  const args: string[] = container.args;
  const arg = (flag: string): string | undefined => args.find((a) => a.startsWith(`--${flag}=`))?.slice(flag.length + 3);

  it('the daemon serves /metrics and /probe on its metrics port to the pod network, one replica at a time', () => {
    expect(args[0]).toBe('probe');
    expect(args).not.toContain('--once');
    const port = container.ports.find((p: { name: string }) => p.name === 'metrics');
    expect(Number(arg('metrics-port'))).toBe(port.containerPort);
    expect(arg('metrics-host')).toBe('0.0.0.0');
    expect(arg('history')?.startsWith(`${container.volumeMounts[0].mountPath}/`)).toBe(true);
    // Two daemons appending to one history would count every round twice.
    expect(deployment.spec.replicas).toBe(1);
    expect(deployment.spec.strategy).toEqual({ type: 'Recreate' });
    expect(container.securityContext).toEqual({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } });
    expect(pod.securityContext.runAsNonRoot).toBe(true);
    expect(container.env.map((e: { name: string }) => e.name).sort()).toEqual(['FLOWGAUGE_BASE_URL', 'FLOWGAUGE_TOKEN']);
    expect(args.join(' ')).not.toMatch(/--token/);
  });

  it('the ServiceMonitor reaches the daemon through its Service: /metrics, and /probe for a check the daemon runs', () => {
    const service = byKind(daemon, 'Service');
    expect(matches(service.spec.selector, deployment.spec.template.metadata.labels)).toBe(true);
    const monitor = byKind(monitors, 'ServiceMonitor', 'flowgauge-probe');
    expect(matches(monitor.spec.selector.matchLabels, service.metadata.labels)).toBe(true);
    const portNames = service.spec.ports.map((p: { name: string }) => p.name);
    const endpoints: { port: string; path: string; params?: { check?: string[] } }[] = monitor.spec.endpoints;
    for (const e of endpoints) expect(portNames).toContain(e.port);
    expect(endpoints.map((e) => e.path).sort()).toEqual(['/metrics', '/probe']);
    const probe = endpoints.find((e) => e.path === '/probe');
    const runs = arg('checks')?.split(',') ?? [...CHECK_NAMES];
    expect(probe?.params?.check?.length).toBe(1);
    for (const c of probe?.params?.check ?? []) expect(runs).toContain(c);
  });

  it('the Pushgateway is scraped with honorLabels, at the Service the CronJob pushes to', () => {
    const service = byKind(gateway, 'Service');
    const monitor = byKind(monitors, 'ServiceMonitor', 'flowgauge-pushgateway');
    expect(matches(monitor.spec.selector.matchLabels, service.metadata.labels)).toBe(true);
    const [endpoint] = monitor.spec.endpoints;
    expect(endpoint.honorLabels).toBe(true);
    const port = service.spec.ports.find((p: { name: string }) => p.name === endpoint.port);
    expect(port).toBeDefined();
    expect(read('deploy/kubernetes/probe-cronjob.yaml')).toContain(`--pushgateway http://${service.metadata.name}:${port.port}`);
  });
});

