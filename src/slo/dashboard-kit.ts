/**
 * Turns a declarative dashboard description into a Grafana dashboard through Grafana's own
 * Foundation SDK, whose builders and types are generated from Grafana's dashboard schema: a
 * field Grafana does not know, or a value of the wrong type, fails `tsc`, not an import.
 *
 * Every panel, query, variable and annotation reads the `datasource` template variable, so the
 * JSON imports as it is through the UI, a provisioning file or the Kubernetes sidecar: no
 * `__inputs`, no `${DS_…}` placeholder that only the UI import fills in.
 */
import {
  BigValueColorMode,
  BigValueGraphMode,
  GraphThresholdsStyleConfigBuilder,
  GraphThresholdsStyleMode,
  LegendDisplayMode,
  LegendPlacement,
  ReduceDataOptionsBuilder,
  StackingConfigBuilder,
  StackingMode,
  TooltipDisplayMode,
  VizLegendOptionsBuilder,
  VizTooltipOptionsBuilder,
  type DataSourceRef,
} from '@grafana/grafana-foundation-sdk/common';
import {
  AnnotationQueryBuilder,
  DashboardBuilder,
  DashboardCursorSync,
  DatasourceVariableBuilder,
  QueryVariableBuilder,
  RowBuilder,
  ThresholdsConfigBuilder,
  ThresholdsMode,
  VariableRefresh,
  VariableSort,
  type Dashboard,
} from '@grafana/grafana-foundation-sdk/dashboard';
import { DataqueryBuilder, PromQueryFormat } from '@grafana/grafana-foundation-sdk/prometheus';
import { PanelBuilder as StatPanelBuilder } from '@grafana/grafana-foundation-sdk/stat';
import { PanelBuilder as TablePanelBuilder } from '@grafana/grafana-foundation-sdk/table';
import { PanelBuilder as TimeseriesPanelBuilder } from '@grafana/grafana-foundation-sdk/timeseries';

/** A Grafana dashboard (the schema's `Dashboard`, JSON-ready). */
export type GrafanaDashboard = Dashboard;

/** Name of the datasource template variable every query uses. */
export const DATASOURCE_VARIABLE = 'datasource';

/** What every panel, query, variable and annotation reads from. */
export const DS: DataSourceRef = { type: 'prometheus', uid: `\${${DATASOURCE_VARIABLE}}` };

/** One PromQL query of a panel. */
export interface Query {
  readonly expr: string;
  readonly legend?: string;
  /** Instant query (tables of current state). */
  readonly instant?: boolean;
}

/** One panel. */
export interface PanelSpec {
  readonly title: string;
  readonly type: 'timeseries' | 'stat' | 'table';
  readonly queries: readonly Query[];
  readonly unit?: string;
  readonly description?: string;
  /** Width in grid columns (of 24; each line of panels fills 24); height in rows. */
  readonly w?: number;
  readonly h?: number;
  /** Threshold steps: [value, color]; the first value is the base (null). */
  readonly thresholds?: readonly (readonly [number | null, string])[];
  readonly min?: number;
  readonly max?: number;
  /** Stack the series (parts of a whole, e.g. the phases of a request). */
  readonly stack?: boolean;
}

/** A row heading the panels after it. */
export interface RowSpec {
  readonly row: string;
}

/** A `label_values` template variable: multi-select, "All" = `.*`, so `=~"$name"` stays valid PromQL. */
export interface VariableSpec {
  readonly name: string;
  readonly label: string;
  /** The metric (with matchers, e.g. `m{scenario=~"$scenario"}`) whose label values are offered. */
  readonly metric: string;
}

/** Annotations from a PromQL query: every step where it returns a positive value is marked. */
export interface AnnotationSpec {
  readonly name: string;
  readonly expr: string;
  /** Title of each annotation, with `{{label}}` placeholders. */
  readonly title: string;
  /** Labels shown as the annotation's tags, comma-separated. */
  readonly tagKeys: string;
  readonly color: string;
}

/** A whole dashboard. */
export interface DashboardSpec {
  readonly uid: string;
  readonly title: string;
  readonly description: string;
  readonly variables: readonly VariableSpec[];
  readonly annotations: readonly AnnotationSpec[];
  readonly panels: readonly (PanelSpec | RowSpec)[];
}

function target(q: Query, i: number): DataqueryBuilder {
  const b = new DataqueryBuilder()
    .datasource(DS)
    .refId(String.fromCharCode(65 + i))
    .expr(q.expr)
    .legendFormat(q.legend ?? '__auto');
  return q.instant === true ? b.instant().format(PromQueryFormat.Table) : b.range();
}

function thresholds(p: PanelSpec): ThresholdsConfigBuilder {
  const steps = (p.thresholds ?? [[null, 'green']]).map(([value, color]) => ({ value, color }));
  return new ThresholdsConfigBuilder().mode(ThresholdsMode.Absolute).steps(steps);
}

function panel(p: PanelSpec, id: number): StatPanelBuilder | TablePanelBuilder | TimeseriesPanelBuilder {
  const b =
    p.type === 'stat'
      ? new StatPanelBuilder()
          .reduceOptions(new ReduceDataOptionsBuilder().calcs(['lastNotNull']).fields('').values(false))
          .colorMode(BigValueColorMode.Value)
          .graphMode(BigValueGraphMode.Area)
      : p.type === 'table'
        ? new TablePanelBuilder().showHeader(true)
        : timeseriesPanel(p);
  b.id(id)
    .title(p.title)
    .datasource(DS)
    .span(p.w ?? 12)
    .height(p.h ?? (p.type === 'stat' ? 4 : 8))
    .unit(p.unit ?? 'short')
    .thresholds(thresholds(p))
    .targets(p.queries.map(target));
  if (p.description !== undefined) b.description(p.description);
  if (p.min !== undefined) b.min(p.min);
  if (p.max !== undefined) b.max(p.max);
  return b;
}

function timeseriesPanel(p: PanelSpec): TimeseriesPanelBuilder {
  const b = new TimeseriesPanelBuilder()
    .legend(
      new VizLegendOptionsBuilder().displayMode(LegendDisplayMode.Table).placement(LegendPlacement.Bottom).showLegend(true).calcs(['lastNotNull', 'max']),
    )
    .tooltip(new VizTooltipOptionsBuilder().mode(TooltipDisplayMode.Multi));
  if (p.thresholds !== undefined) b.thresholdsStyle(new GraphThresholdsStyleConfigBuilder().mode(GraphThresholdsStyleMode.Dashed));
  if (p.stack === true) b.stacking(new StackingConfigBuilder().mode(StackingMode.Normal)).fillOpacity(40);
  return b;
}

function variable(v: VariableSpec): QueryVariableBuilder {
  const query = `label_values(${v.metric}, ${v.name})`;
  return new QueryVariableBuilder(v.name)
    .label(v.label)
    .datasource(DS)
    .query({ query, refId: 'PrometheusVariableQueryEditor-VariableQuery' })
    .includeAll(true)
    .multi(true)
    .allValue('.*')
    .current({ selected: true, text: ['All'], value: ['$__all'] })
    .refresh(VariableRefresh.OnTimeRangeChanged)
    .sort(VariableSort.AlphabeticalAsc);
}

function annotation(a: AnnotationSpec): AnnotationQueryBuilder {
  return new AnnotationQueryBuilder()
    .name(a.name)
    .datasource(DS)
    .enable(true)
    .iconColor(a.color)
    // The query lives in `target`, where Grafana's Prometheus datasource moves a legacy top-level
    // `expr`/`step` anyway; the title and tag fields stay top-level, where it reads them.
    .target(new DataqueryBuilder().datasource(DS).refId('Anno').expr(a.expr).interval('60s').range())
    .titleFormat(a.title)
    .tagKeys(a.tagKeys)
    .useValueForTime(false);
}

/** Grafana's own annotations and alerts, as every new dashboard has them. */
const BUILT_IN = new AnnotationQueryBuilder()
  .builtIn(1)
  .datasource({ type: 'grafana', uid: '-- Grafana --' })
  .enable(true)
  .hide(true)
  .iconColor('rgba(0, 211, 255, 1)')
  .name('Annotations & Alerts')
  .type('dashboard');

/** Builds the dashboard. Panels are laid out left to right by the SDK, wrapping at 24 columns. */
export function buildDashboard(spec: DashboardSpec): GrafanaDashboard {
  const b = new DashboardBuilder(spec.title)
    .uid(spec.uid)
    .description(spec.description)
    .tags(['flowgauge'])
    .editable()
    .tooltip(DashboardCursorSync.Crosshair)
    .refresh('30s')
    .time({ from: 'now-1h', to: 'now' })
    .timezone('browser')
    .withVariable(new DatasourceVariableBuilder(DATASOURCE_VARIABLE).label('Data source').type('prometheus'))
    .annotation(BUILT_IN);
  for (const v of spec.variables) b.withVariable(variable(v));
  for (const a of spec.annotations) b.annotation(annotation(a));
  let id = 0;
  for (const p of spec.panels) {
    id++;
    if ('row' in p) b.withRow(new RowBuilder(p.row).id(id));
    else b.withPanel(panel(p, id));
  }
  const built = b.build();
  // The SDK gives every variable the interval variable's auto-step fields; Grafana's schema has
  // them on no variable and reads them only on interval ones.
  for (const v of built.templating.list ?? []) {
    const loose = v as unknown as Record<string, unknown>;
    if (v.type !== 'interval') for (const k of ['auto', 'auto_min', 'auto_count']) delete loose[k];
  }
  return built;
}

/** `q(expr, legend)`: a range query. */
export const q = (expr: string, legend?: string): Query => (legend === undefined ? { expr } : { expr, legend });

/** `rate(selector[$__rate_interval])`. */
export const rate = (selector: string): string => `rate(${selector}[$__rate_interval])`;

/** `op by (labels) (expr)`: an aggregation that keeps `labels` apart (`aggregateBy('sum', ['target'], …)`). */
export const aggregateBy = (op: 'sum' | 'max', labels: readonly string[], expr: string): string => `${op} by (${labels.join(', ')}) (${expr})`;

/**
 * p50, p90 and p99 of a histogram's buckets, optionally kept apart by labels (`by` = `['target']`):
 * each series is named by its quantile and those labels' values.
 */
export function quantiles(bucket: string, matchers: string, by: readonly string[] = []): Query[] {
  const legend = by.map((l) => ` {{${l}}}`).join('');
  return (
    [
      ['0.5', 'p50'],
      ['0.9', 'p90'],
      ['0.99', 'p99'],
    ] as const
  ).map(([p, name]) => q(`histogram_quantile(${p}, sum by (${['le', ...by].join(', ')}) (${rate(`${bucket}{${matchers}}`)}))`, `${name}${legend}`));
}
