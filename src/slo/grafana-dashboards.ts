/**
 * Grafana dashboards, importable anywhere as they are (UI, provisioning file, Kubernetes
 * sidecar): `run` for load runs, `slo` for the probes' uptime objective and the load-run SLI,
 * `uptime` for the probes. Pure: returns plain objects built with Grafana's Foundation SDK
 * (`dashboard-kit.ts`). Every query reads metric and rule names from `metric-names.ts`, so the
 * panels and the exporters cannot drift apart.
 *
 * This module loads the SDK: import it only where dashboards are built (`slo dashboards`), not
 * from code every command loads.
 */
import { DEFAULT_OBJECTIVE } from './budget.js';
import { buildDashboard, type GrafanaDashboard } from './dashboard-kit.js';
import { runDashboardSpec } from './dashboard-run.js';
import { sloDashboardSpec } from './dashboard-slo.js';
import { uptimeDashboardSpec } from './dashboard-uptime.js';
import { resolveSloRuleOptions, type SloRuleOptions } from './rule-options.js';

export { DASHBOARD_FILES, renderDashboardJson, renderDashboardsConfigMap } from './dashboard-files.js';
export { DATASOURCE_VARIABLE, type GrafanaDashboard } from './dashboard-kit.js';

/** The three dashboards. */
export interface Dashboards {
  readonly run: GrafanaDashboard;
  readonly slo: GrafanaDashboard;
  readonly uptime: GrafanaDashboard;
}

/** Builds the run, SLO and uptime dashboards (defaults: 99.9 % over 30d, no latency objectives). */
export function generateDashboards(options: Partial<SloRuleOptions> = {}): Dashboards {
  const r = resolveSloRuleOptions({ ...options, objective: options.objective ?? DEFAULT_OBJECTIVE, period: options.period ?? '30d' });
  return { run: buildDashboard(runDashboardSpec()), slo: buildDashboard(sloDashboardSpec(r)), uptime: buildDashboard(uptimeDashboardSpec(r)) };
}
