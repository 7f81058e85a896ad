/**
 * Grafana dashboards (classic JSON model, importable as they are): `run` for a load run,
 * `slo` for the objectives and their burn rates, `uptime` for the probes. Pure: returns
 * plain objects. Every query reads metric and rule names from `metric-names.ts`, so the
 * panels and the exporters cannot drift apart.
 *
 * Template variables are regex-matched (`=~"$tier"`, "All" = `.*`), so the expressions stay
 * valid PromQL once Grafana substitutes them.
 */
import { DEFAULT_OBJECTIVE } from './budget.js';
import { PROBE_METRICS, RECORDING_RULES, RUN_METRICS } from './metric-names.js';
import { formatNumber, resolveSloRuleOptions, type SloRuleOptions } from './prometheus-rules.js';

/** A Grafana dashboard as JSON-ready data. */
export type GrafanaDashboard = Record<string, unknown>;

/** The three dashboards. */
export interface Dashboards {
  readonly run: GrafanaDashboard;
  readonly slo: GrafanaDashboard;
  readonly uptime: GrafanaDashboard;
}

/** File names the dashboards are written under (`slo dashboards --out-dir`, `deploy/grafana/`). */
export const DASHBOARD_FILES: Readonly<Record<keyof Dashboards, string>> = {
  run: 'flowgauge-run.json',
  slo: 'flowgauge-slo.json',
  uptime: 'flowgauge-uptime.json',
};

const DS = { type: 'prometheus', uid: '${DS_PROMETHEUS}' } as const;

interface Query {
  readonly expr: string;
  readonly legend?: string;
  /** Instant query (tables of current state). */
  readonly instant?: boolean;
}

interface PanelSpec {
  readonly title: string;
  readonly type: 'timeseries' | 'stat' | 'table';
  readonly queries: readonly Query[];
  readonly unit?: string;
  readonly description?: string;
  /** Width in grid columns (of 24); height in rows. */
  readonly w?: number;
  readonly h?: number;
  /** Threshold steps: [value, color]; the first value is the base (null). */
  readonly thresholds?: readonly (readonly [number | null, string])[];
  readonly min?: number;
  readonly max?: number;
}

function panels(specs: readonly PanelSpec[]): Record<string, unknown>[] {
  let x = 0;
  let y = 0;
  let rowH = 0;
  return specs.map((p, i) => {
    const w = p.w ?? 12;
    const h = p.h ?? (p.type === 'stat' ? 4 : 8);
    if (x + w > 24) {
      x = 0;
      y += rowH;
      rowH = 0;
    }
    const gridPos = { x, y, w, h };
    x += w;
    rowH = Math.max(rowH, h);
    const steps = (p.thresholds ?? [[null, 'green']]).map(([value, color]) => ({ value, color }));
    return {
      id: i + 1,
      type: p.type,
      title: p.title,
      ...(p.description === undefined ? {} : { description: p.description }),
      datasource: DS,
      gridPos,
      fieldConfig: {
        defaults: {
          unit: p.unit ?? 'short',
          ...(p.min === undefined ? {} : { min: p.min }),
          ...(p.max === undefined ? {} : { max: p.max }),
          thresholds: { mode: 'absolute', steps },
          ...(p.type === 'timeseries' && p.thresholds !== undefined
            ? { custom: { thresholdsStyle: { mode: 'dashed' } } }
            : {}),
        },
        overrides: [],
      },
      options:
        p.type === 'stat'
          ? { reduceOptions: { calcs: ['lastNotNull'], fields: '', values: false }, colorMode: 'value', graphMode: 'area' }
          : p.type === 'table'
            ? { showHeader: true }
            : { legend: { displayMode: 'table', placement: 'bottom', calcs: ['lastNotNull', 'max'] }, tooltip: { mode: 'multi' } },
      targets: p.queries.map((q, j) => ({
        datasource: DS,
        refId: String.fromCharCode(65 + j),
        expr: q.expr,
        legendFormat: q.legend ?? '__auto',
        ...(q.instant === true ? { instant: true, range: false, format: 'table' } : { range: true }),
      })),
    };
  });
}

function variable(name: string, label: string, metric: string): Record<string, unknown> {
  const query = `label_values(${metric}, ${name})`;
  return {
    name,
    label,
    type: 'query',
    datasource: DS,
    definition: query,
    query: { query, refId: `${name}-values` },
    includeAll: true,
    multi: true,
    allValue: '.*',
    current: { selected: true, text: ['All'], value: ['$__all'] },
    options: [],
    refresh: 2,
    sort: 1,
    regex: '',
    hide: 0,
  };
}

function dashboard(uid: string, title: string, description: string, vars: Record<string, unknown>[], specs: PanelSpec[]): GrafanaDashboard {
  return {
    __inputs: [
      {
        name: 'DS_PROMETHEUS',
        label: 'Prometheus',
        description: 'The Prometheus that scrapes flowgauge and loads its rules',
        type: 'datasource',
        pluginId: 'prometheus',
        pluginName: 'Prometheus',
      },
    ],
    __requires: [
      { type: 'grafana', id: 'grafana', name: 'Grafana', version: '10.0.0' },
      { type: 'datasource', id: 'prometheus', name: 'Prometheus', version: '1.0.0' },
      { type: 'panel', id: 'timeseries', name: 'Time series', version: '' },
      { type: 'panel', id: 'stat', name: 'Stat', version: '' },
      { type: 'panel', id: 'table', name: 'Table', version: '' },
    ],
    id: null,
    uid,
    title,
    description,
    tags: ['flowgauge'],
    editable: true,
    graphTooltip: 1,
    timezone: '',
    refresh: '10s',
    time: { from: 'now-1h', to: 'now' },
    timepicker: {},
    schemaVersion: 39,
    version: 1,
    links: [],
    annotations: { list: [] },
    templating: { list: vars },
    panels: panels(specs),
  };
}

const q = (expr: string, legend?: string): Query => (legend === undefined ? { expr } : { expr, legend });
const rate = (selector: string): string => `rate(${selector}[$__rate_interval])`;
const quantiles = (bucket: string, matchers: string, by = ''): Query[] =>
  (
    [
      ['0.5', 'p50'],
      ['0.9', 'p90'],
      ['0.99', 'p99'],
    ] as const
  ).map(([p, name]) =>
    q(`histogram_quantile(${p}, sum by (le${by}) (${rate(`${bucket}{${matchers}}`)}))`, `${name}${by === '' ? '' : ` {{${by.slice(2)}}}`}`),
  );

function runDashboard(): GrafanaDashboard {
  const m = RUN_METRICS;
  const t = 'tier=~"$tier"';
  const to = 'tier=~"$tier",operation=~"$operation"';
  const req = `${m.requests.name}{${to}}`;
  const sli = m.sliEvents.name;
  return dashboard(
    'flowgauge-run',
    'flowgauge — load run',
    'Throughput, latency from the intended start, stream timing, 429 behaviour and errors of a flowgauge run.',
    [variable('tier', 'Tier', m.requests.name), variable('operation', 'Operation', m.requests.name)],
    [
      { title: 'Request rate', type: 'stat', w: 6, unit: 'reqps', queries: [q(`sum(${rate(req)})`)] },
      {
        title: 'Availability (time range)',
        type: 'stat',
        w: 6,
        unit: 'percentunit',
        thresholds: [[null, 'red'], [0.999, 'green']],
        queries: [q(`sum(increase(${sli}{${to},sli="good"}[$__range])) / sum(increase(${sli}{${to},sli=~"good|bad"}[$__range]))`)],
      },
      { title: 'In flight', type: 'stat', w: 6, queries: [q(`sum(${m.inFlight.name}{${t}})`)] },
      { title: 'Dropped starts (time range)', type: 'stat', w: 6, queries: [q(`sum(increase(${m.dropped.name}{${t}}[$__range]))`)] },
      { title: 'Requests by outcome', type: 'timeseries', unit: 'reqps', queries: [q(`sum by (outcome) (${rate(req)})`, '{{outcome}}')] },
      {
        title: 'Latency from intended start',
        type: 'timeseries',
        unit: 's',
        description: 'Measured from the scheduled start, so a stalled service shows here (no coordinated omission).',
        queries: quantiles(`${m.requestDuration.name}_bucket`, to),
      },
      { title: 'p99 latency by operation', type: 'timeseries', unit: 's', queries: quantiles(`${m.requestDuration.name}_bucket`, to, ', operation').slice(2) },
      { title: 'Stream time to first token', type: 'timeseries', unit: 's', queries: quantiles(`${m.streamTtft.name}_bucket`, t) },
      { title: 'Stream inter-token latency', type: 'timeseries', unit: 's', queries: quantiles(`${m.streamItl.name}_bucket`, t) },
      { title: 'Stream time to start event', type: 'timeseries', unit: 's', queries: quantiles(`${m.streamTimeToStart.name}_bucket`, t) },
      {
        title: '429s: expected vs premature, against request rate',
        type: 'timeseries',
        unit: 'reqps',
        description: 'Expected: the client was over the advertised limit (excluded from the SLI). Premature: under it (bad).',
        queries: [q(`sum by (kind) (${rate(`${m.rateLimited.name}{${to}}`)})`, '429 {{kind}}'), q(`sum(${rate(req)})`, 'all requests')],
      },
      {
        title: 'Rate-limit headers',
        type: 'timeseries',
        queries: [q(`max by (tier) (${m.rateLimitRemaining.name}{${t}})`, 'remaining {{tier}}'), q(`max by (tier) (${m.rateLimitLimit.name}{${t}})`, 'limit {{tier}}')],
      },
      { title: 'Errors by code', type: 'timeseries', unit: 'reqps', queries: [q(`sum by (code) (${rate(`${m.requests.name}{${to},code!="none"}`)})`, '{{code}}')] },
      {
        title: 'In flight and dropped',
        type: 'timeseries',
        queries: [q(`sum(${m.inFlight.name}{${t}})`, 'in flight'), q(`sum(${rate(`${m.dropped.name}{${t}}`)})`, 'dropped/s')],
      },
      {
        title: 'Stream tokens and incomplete streams',
        type: 'timeseries',
        queries: [q(`sum(${rate(`${m.streamTokens.name}{${t}}`)})`, 'tokens/s'), q(`sum(${rate(`${m.streamIncomplete.name}{${t}}`)})`, 'incomplete streams/s')],
      },
      {
        title: 'Contract violations by operation',
        type: 'timeseries',
        queries: [q(`sum by (operation) (${rate(`${m.contractViolations.name}{${to}}`)})`, '{{operation}}')],
      },
    ],
  );
}

function sloDashboard(options: SloRuleOptions): GrafanaDashboard {
  const r = resolveSloRuleOptions(options);
  const b = formatNumber(r.budget);
  const t = '{tier=~"$tier"}';
  const byTier = RECORDING_RULES.sliErrorRatioByTier;
  const pct = `${formatNumber(r.objective * 100)} %`;
  const specs: PanelSpec[] = [
    {
      title: `Availability (${r.period})`,
      type: 'stat',
      w: 8,
      unit: 'percentunit',
      thresholds: [[null, 'red'], [r.objective, 'green']],
      queries: [q(`1 - ${byTier(r.period)}${t}`, '{{tier}}')],
    },
    {
      title: `Error budget remaining (${r.period})`,
      type: 'stat',
      w: 8,
      unit: 'percentunit',
      description: `Share of the ${b} error budget (objective ${pct}) not yet spent over the period.`,
      thresholds: [[null, 'red'], [0.25, 'orange'], [0.5, 'green']],
      queries: [q(`1 - (${byTier(r.period)}${t} / ${b})`, '{{tier}}')],
    },
    {
      title: 'Burn rate (1h)',
      type: 'stat',
      w: 8,
      thresholds: [[null, 'green'], [1, 'orange'], [14.4, 'red']],
      queries: [q(`${byTier('1h')}${t} / ${b}`, '{{tier}}')],
    },
    {
      title: 'Availability over each window',
      type: 'timeseries',
      unit: 'percentunit',
      max: 1,
      thresholds: [[null, 'red'], [r.objective, 'green']],
      queries: r.windows.map((w) => q(`1 - ${byTier(w)}${t}`, `{{tier}} ${w}`)),
    },
    {
      title: 'Burn rate per window',
      type: 'timeseries',
      description: 'Error ratio divided by the budget. Alerts: 1h & 5m > 14.4, 6h & 30m > 6 (page); 1d & 2h > 3, 3d & 6h > 1 (ticket).',
      thresholds: [[null, 'green'], [1, 'yellow'], [3, 'orange'], [6, 'red'], [14.4, 'purple']],
      queries: r.windows.map((w) => q(`${byTier(w)}${t} / ${b}`, `{{tier}} ${w}`)),
    },
    {
      title: 'SLI events by class',
      type: 'timeseries',
      unit: 'reqps',
      description: 'Excluded: expected 429s and negative tests; they never count against the objective.',
      queries: [q(`sum by (sli) (${rate(`${RUN_METRICS.sliEvents.name}${t}`)})`, '{{sli}}')],
    },
    {
      title: 'SLO alerts (pending or firing)',
      type: 'table',
      queries: [{ expr: 'ALERTS{alertname=~"Flowgauge.*"}', instant: true }],
    },
  ];
  for (const o of r.latencyObjectives) {
    const sel = `{tier=~"$tier",target="${o.labels.target}",threshold_seconds="${o.labels.threshold_seconds}"}`;
    const lb = formatNumber(o.budget);
    specs.push({
      title: `${o.target} slower than ${o.labels.threshold_seconds}s: burn rate per window`,
      type: 'timeseries',
      description: `Objective: ${formatNumber(o.objective * 100)} % within ${o.labels.threshold_seconds}s.`,
      thresholds: [[null, 'green'], [1, 'yellow'], [6, 'red']],
      queries: r.windows.map((w) => q(`${RECORDING_RULES.latencyErrorRatioByTier(w)}${sel} / ${lb}`, `{{tier}} ${w}`)),
    });
  }
  return dashboard(
    'flowgauge-slo',
    'flowgauge — SLOs and error budget',
    `Availability objective ${pct} over ${r.period}, from the flowgauge recording rules.`,
    [variable('tier', 'Tier', RUN_METRICS.sliEvents.name)],
    specs,
  );
}

function uptimeDashboard(options: SloRuleOptions): GrafanaDashboard {
  const r = resolveSloRuleOptions(options);
  const p = PROBE_METRICS;
  const c = 'check=~"$check"';
  return dashboard(
    'flowgauge-uptime',
    'flowgauge — uptime probes',
    'Scheduled probes of the service: success, time-based uptime and duration by phase.',
    [variable('check', 'Check', p.total.name)],
    [
      { title: 'Probes up now', type: 'stat', w: 6, thresholds: [[null, 'red'], [1, 'green']], queries: [q(`min(${p.success.name}{${c}})`)] },
      {
        title: 'Uptime, time-based (time range)',
        type: 'stat',
        w: 6,
        unit: 'percentunit',
        thresholds: [[null, 'red'], [r.objective, 'green']],
        queries: [q(`avg(avg_over_time(${p.success.name}{${c}}[$__range]))`)],
      },
      {
        title: 'Probe success ratio (time range)',
        type: 'stat',
        w: 6,
        unit: 'percentunit',
        thresholds: [[null, 'red'], [r.objective, 'green']],
        queries: [q(`sum(increase(${p.total.name}{${c},result="success"}[$__range])) / sum(increase(${p.total.name}{${c}}[$__range]))`)],
      },
      {
        title: `Error budget remaining (probes, ${r.period})`,
        type: 'stat',
        w: 6,
        unit: 'percentunit',
        queries: [q(`1 - ((1 - avg(avg_over_time(${p.success.name}{${c}}[${r.period}]))) / ${formatNumber(r.budget)})`)],
      },
      { title: 'Probe success by check', type: 'timeseries', min: 0, max: 1, queries: [q(`${p.success.name}{${c}}`, '{{check}}')] },
      { title: 'Probe results', type: 'timeseries', queries: [q(`sum by (result) (${rate(`${p.total.name}{${c}}`)})`, '{{result}}')] },
      {
        title: 'Probe duration by phase (p90)',
        type: 'timeseries',
        unit: 's',
        queries: [q(`histogram_quantile(0.9, sum by (le, phase) (${rate(`${p.duration.name}_bucket{${c}}`)}))`, '{{phase}}')],
      },
      {
        title: 'Failed probes by check (time range)',
        type: 'timeseries',
        queries: [q(`sum by (check) (increase(${p.total.name}{${c},result="failure"}[$__range]))`, '{{check}}')],
      },
      { title: 'TLS version', type: 'table', queries: [{ expr: `${p.tlsVersion.name}{${c}}`, instant: true }] },
    ],
  );
}

/** Builds the run, SLO and uptime dashboards (defaults: 99.9 % over 30d, no latency objectives). */
export function generateDashboards(options: Partial<SloRuleOptions> = {}): Dashboards {
  const o: SloRuleOptions = {
    objective: options.objective ?? DEFAULT_OBJECTIVE,
    period: options.period ?? '30d',
    ...(options.latencyObjectives === undefined ? {} : { latencyObjectives: options.latencyObjectives }),
  };
  return { run: runDashboard(), slo: sloDashboard(o), uptime: uptimeDashboard(o) };
}

/** A dashboard as the file text written to disk: 2-space JSON with a final newline. */
export function renderDashboardJson(d: GrafanaDashboard): string {
  return `${JSON.stringify(d, null, 2)}\n`;
}
