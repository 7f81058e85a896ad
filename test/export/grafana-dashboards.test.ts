/**
 * The dashboards as Grafana reads them: typed by Grafana's own schema (`@grafana/schema`), on a
 * datasource template variable (so they provision from a file or the sidecar, where `__inputs`
 * is never filled in), querying only metrics and rules that exist, with the variables,
 * annotations and panels an SRE looks for.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import {
  DASHBOARD_FILES,
  DATASOURCE_VARIABLE,
  generateDashboards,
  renderDashboardJson,
  renderDashboardsConfigMap,
  type GrafanaDashboard,
} from '../../src/slo/grafana-dashboards.js';
import { ALL_METRICS, JOURNEY_METRICS, PROBE_METRICS, RECORDING_RULES, RUN_METRICS } from '../../src/slo/metric-names.js';
import { annotationExprs, panelExprs, variableExprs } from './helpers/prometheus.js';

const ROOT = resolve(import.meta.dirname, '../..');
const read = (p: string) => readFileSync(resolve(ROOT, p), 'utf8');

interface Panel {
  id: number;
  type: string;
  title: string;
  gridPos: { x: number; y: number; w: number; h: number };
  datasource?: { type?: string; uid?: string };
  targets?: { expr: string; refId: string; legendFormat?: string; datasource: { uid: string } }[];
  fieldConfig?: { defaults: { unit?: string } };
}

const panelsOf = (d: GrafanaDashboard) => (d.panels ?? []) as unknown as Panel[];
const exprsOf = (d: GrafanaDashboard) => panelExprs(d).map((p) => p.expr);
const varsOf = (d: GrafanaDashboard) => (d.templating?.list ?? []).map((v) => v.name);
const byTitle = (d: GrafanaDashboard, re: RegExp) => panelExprs(d).filter((p) => re.test(p.title)).map((p) => p.expr);

/** Metric names an expression reads: every flowgauge_… or flowgauge:… identifier. */
function namesIn(expr: string): string[] {
  return [...expr.matchAll(/\bflowgauge[_:][a-zA-Z0-9_:]*/g)].map((m) => m[0]);
}

const KNOWN = new Set<string>();
for (const m of ALL_METRICS) {
  KNOWN.add(m.name);
  if (m.type === 'histogram') for (const s of ['_bucket', '_sum', '_count']) KNOWN.add(m.name + s);
}
for (const w of ['5m', '30m', '1h', '2h', '6h', '1d', '3d', '30d', '28d']) for (const f of Object.values(RECORDING_RULES)) KNOWN.add(f(w));

/** Grafana's own variables, which need no definition in the dashboard. */
const GLOBALS = new Set(['__rate_interval', '__range', '__interval', '__all']);

describe('generateDashboards', () => {
  const d = generateDashboards();
  const all = Object.entries(d) as [keyof typeof d, GrafanaDashboard][];

  it("type-checks the rendered JSON against Grafana's published dashboard schema (@grafana/schema)", () => {
    // The JSON text as a TypeScript literal of @grafana/schema's Dashboard type, compiled by tsc:
    // a field the schema does not know (excess property) or a value of the wrong type fails. The
    // schema leaves datasource-specific fields to the datasource, so queries are also allowed the
    // Prometheus query's fields, and annotations the Prometheus annotation's title and tag fields.
    const dir = mkdtempSync(join(tmpdir(), 'flowgauge-schema-'));
    try {
      const lit = all.map(([name, db]) => `export const ${name}: Checked = ${renderDashboardJson(db)};`).join('\n');
      writeFileSync(
        join(dir, 'check.ts'),
        [
          "import type { AnnotationQuery, Dashboard } from '@grafana/schema';",
          "import type { Dataquery as PromQuery } from '@grafana/grafana-foundation-sdk/prometheus';",
          'type LooseObj<T> = { [K in keyof T]: Loose<T[K]> };',
          // String enums are nominal in TypeScript; JSON holds their values.
          'type Loose<T> = T extends string ? `${T}` : T extends number | boolean | null | undefined ? T : T extends readonly (infer U)[] ? Loose<U>[]',
          "  : T extends { refId: string } ? LooseObj<T> & LooseObj<Omit<PromQuery, '_implementsDataqueryVariant'>> : T extends object ? LooseObj<T> : T;",
          'type PromAnnotation = Loose<AnnotationQuery> & { titleFormat?: string; textFormat?: string; tagKeys?: string; useValueForTime?: boolean };',
          "type Checked = Omit<Loose<Dashboard>, 'annotations'> & { annotations?: { list?: PromAnnotation[] } };",
          lit,
        ].join('\n'),
      );
      const nm = resolve(ROOT, 'node_modules');
      writeFileSync(
        join(dir, 'tsconfig.json'),
        JSON.stringify({
          compilerOptions: {
            strict: true,
            noEmit: true,
            skipLibCheck: true,
            module: 'NodeNext',
            moduleResolution: 'NodeNext',
            types: [],
            paths: {
              '@grafana/schema': [join(nm, '@grafana/schema/dist/types/index.d.ts')],
              '@grafana/grafana-foundation-sdk/prometheus': [join(nm, '@grafana/grafana-foundation-sdk/dist/prometheus/index.d.ts')],
            },
          },
          files: ['check.ts'],
        }),
      );
      const r = spawnSync(process.execPath, [join(nm, 'typescript/bin/tsc'), '-p', join(dir, 'tsconfig.json')], { encoding: 'utf8', timeout: 60_000 });
      expect(`${r.stdout}${r.stderr}`).toBe('');
      expect(r.status).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    for (const [, db] of all) expect(db.schemaVersion).toBeGreaterThanOrEqual(39);
  }, 60_000);

  it('reads a datasource template variable everywhere: no __inputs, no ${DS_…} left for an import screen to fill in', () => {
    const uids = new Set<unknown>();
    for (const [name, db] of all) {
      const text = renderDashboardJson(db);
      expect(text, name).not.toContain('__inputs');
      expect(text, name).not.toContain('${DS_');
      const [ds] = db.templating?.list ?? [];
      expect(ds, name).toMatchObject({ name: DATASOURCE_VARIABLE, type: 'datasource', query: 'prometheus' });
      uids.add(db.uid);
      for (const p of panelsOf(db)) {
        if (p.type === 'row') continue;
        expect(p.datasource, `${name}: ${p.title}`).toEqual({ type: 'prometheus', uid: `\${${DATASOURCE_VARIABLE}}` });
        expect(p.targets?.length, p.title).toBeGreaterThan(0);
        for (const t of p.targets ?? []) expect(t.datasource.uid).toBe(`\${${DATASOURCE_VARIABLE}}`);
      }
      for (const v of (db.templating?.list ?? []).slice(1)) expect(v.datasource?.uid, `${name}: variable ${v.name}`).toBe(`\${${DATASOURCE_VARIABLE}}`);
      for (const a of db.annotations?.list ?? []) {
        if (a.builtIn === 1) continue;
        expect(a.datasource?.uid, `${name}: annotation ${a.name}`).toBe(`\${${DATASOURCE_VARIABLE}}`);
      }
      // Every $variable a query uses is defined by the dashboard or is one of Grafana's own.
      const defined = new Set(varsOf(db));
      const used = [...exprsOf(db), ...annotationExprs(db).map((a) => a.expr)].flatMap((e) => [...e.matchAll(/\$(\w+)/g)].map((m) => m[1] as string));
      for (const u of used) expect(defined.has(u) || GLOBALS.has(u), `${name} uses $${u}`).toBe(true);
    }
    expect(uids.size).toBe(3);
  });

  it('offers target, scenario, tier and shard on the run dashboard, target and check on the uptime one, both sources on the SLO one', () => {
    expect(varsOf(d.run)).toEqual(['datasource', 'target', 'scenario', 'tier', 'shard', 'operation']);
    expect(varsOf(d.slo)).toEqual(['datasource', 'target', 'check', 'tier']);
    expect(varsOf(d.uptime)).toEqual(['datasource', 'target', 'check']);
    // Every probe query is filtered by the chosen targets, and none sums across them.
    for (const expr of exprsOf(d.uptime)) {
      expect(expr).toContain('target=~"$target"');
      for (const m of expr.matchAll(/\b(sum|min|max|avg)\s*(?:by\s*\(([^)]*)\)\s*)?\(/g)) expect(m[2] ?? '', expr).toContain('target');
    }
    // Template variables are regex-matched, so "All" (.*) stays valid PromQL and also matches
    // series without the label (shard exists only on pushed, sharded runs).
    for (const [, db] of all) {
      for (const v of (db.templating?.list ?? []).slice(1)) expect(v).toMatchObject({ includeAll: true, multi: true, allValue: '.*' });
      for (const expr of exprsOf(db)) for (const m of expr.matchAll(/(\w+)(=~?|!=)"\$(\w+)"/g)) expect(m[2], expr).toBe('=~');
    }
    expect(variableExprs(d.run).map((v) => v.expr)).toContain(
      `count by (shard) ({__name__=~"${RUN_METRICS.requests.name}|${RUN_METRICS.scheduled.name}",target=~"$target",scenario=~"$scenario"})`,
    );
  });

  it('keeps every run-dashboard figure per target: each selector filtered by $target, each aggregation and legend by target', () => {
    const selectors = (expr: string) => [...expr.matchAll(/\bflowgauge_\w+\{([^}]*)\}/g)].map((m) => m[1] ?? '');
    const queries = [...panelExprs(d.run), ...annotationExprs(d.run)];
    expect(queries.length).toBeGreaterThan(40);
    for (const { title, expr } of queries) {
      // Every metric the query reads is selected with braces, and each selection is filtered.
      expect(selectors(expr).length, `${title}: ${expr}`).toBe(namesIn(expr).length);
      for (const sel of selectors(expr)) expect(sel.split(','), `${title}: ${expr}`).toContain('target=~"$target"');
      // Summed or maxed across targets, staging's errors and latency would hide in production's volume.
      const aggs = [...expr.matchAll(/\b(sum|min|max|avg|count)\s*(?:by\s*\(([^)]*)\)\s*)?\(/g)];
      expect(aggs.length, `${title}: ${expr}`).toBeGreaterThan(0);
      for (const m of aggs) expect((m[2] ?? '').split(/,\s*/), `${title}: ${expr}`).toContain('target');
    }
    for (const p of panelsOf(d.run)) for (const t of p.targets ?? []) expect(t.legendFormat, p.title).toContain('{{target}}');
    expect(annotationExprs(d.run).length).toBe(1);
    expect((d.run.annotations?.list ?? []).find((a) => a.name === 'Load runs')).toMatchObject({ titleFormat: expect.stringContaining('{{target}}') as unknown, tagKeys: 'target,scenario,tier' });
    // The other variables offer only what the chosen targets have; target offers requests' and the scheduler's.
    for (const v of variableExprs(d.run)) expect(v.expr, v.name).toContain(v.name === 'target' ? `{__name__=~"${RUN_METRICS.requests.name}|${RUN_METRICS.scheduled.name}"}` : 'target=~"$target"');
  });

  it('marks load runs and failing probes with annotations that return positive values (Grafana shows only those)', () => {
    const names = (db: GrafanaDashboard) => annotationExprs(db).map((a) => a.title);
    expect(names(d.run)).toEqual(['annotation Load runs']);
    expect(names(d.uptime)).toEqual(['annotation Probe failures']);
    expect(names(d.slo).sort()).toEqual(['annotation Load runs', 'annotation Probe failures']);
    for (const [, db] of all) for (const a of annotationExprs(db)) expect(a.expr).toMatch(/> 0$/);
    expect(annotationExprs(d.run)[0]?.expr).toContain(RUN_METRICS.scheduled.name);
  });

  it('shows phases, scheduled vs achieved rate, checks, iterations and certificate days left', () => {
    expect(byTitle(d.run, /mean per phase/).join()).toContain(`${RUN_METRICS.requestPhase.name}_sum`);
    expect(byTitle(d.run, /phases \(p90\)/).join()).toContain(`${RUN_METRICS.requestPhase.name}_bucket`);
    const rate = byTitle(d.run, /Scheduled vs achieved/).join('\n');
    expect(rate).toContain(RUN_METRICS.scheduled.name);
    expect(rate).toContain(RUN_METRICS.dropped.name);
    expect(rate).toContain(RUN_METRICS.requests.name);
    expect(byTitle(d.run, /Checks/).join()).toContain(JOURNEY_METRICS.checks.name);
    expect(byTitle(d.run, /Iterations/).join()).toContain(JOURNEY_METRICS.iterations.name);
    const cert = panelsOf(d.uptime).filter((p) => /Certificate days left/.test(p.title));
    expect(cert.length).toBe(2);
    for (const p of cert) {
      expect(p.fieldConfig?.defaults.unit).toBe('d');
      expect(p.targets?.[0]?.expr).toBe(`min by (target, check) ((${PROBE_METRICS.tlsCertExpiry.name}{target=~"$target",check=~"$check"} - time()) / 86400)`);
    }
    expect(byTitle(d.uptime, /Last probe/).join()).toContain(`time() - max by (target, check) (${PROBE_METRICS.lastRun.name}`);
    expect(byTitle(d.uptime, /Last success/).join()).toContain(`time() - max by (target, check) (${PROBE_METRICS.lastSuccess.name}`);
  });

  it('lays panels out on the 24-column grid without overlaps, with unique ids', () => {
    for (const [, db] of all) {
      const ps = panelsOf(db);
      expect(new Set(ps.map((p) => p.id)).size).toBe(ps.length);
      for (const a of ps) {
        expect(a.gridPos.x + a.gridPos.w).toBeLessThanOrEqual(24);
        for (const b of ps) {
          if (a === b) continue;
          const overlap =
            a.gridPos.x < b.gridPos.x + b.gridPos.w &&
            b.gridPos.x < a.gridPos.x + a.gridPos.w &&
            a.gridPos.y < b.gridPos.y + b.gridPos.h &&
            b.gridPos.y < a.gridPos.y + a.gridPos.h;
          expect(overlap, `${a.title} overlaps ${b.title}`).toBe(false);
        }
      }
    }
  });

  it('queries only metrics and recording rules that exist', () => {
    for (const [, db] of all) {
      const exprs = [...exprsOf(db), ...annotationExprs(db).map((a) => a.expr), ...variableExprs(db).map((v) => v.expr)];
      for (const expr of exprs) for (const n of namesIn(expr)) expect(KNOWN.has(n), `${n} in ${expr}`).toBe(true);
    }
  });

  it('keeps the probe uptime SLO and the load-run SLI apart on the SLO dashboard, with every window', () => {
    const slo = exprsOf(d.slo).join('\n');
    for (const w of ['5m', '30m', '1h', '2h', '6h', '1d', '3d', '30d']) {
      expect(slo).toContain(RECORDING_RULES.probeErrorRatioByCheck(w));
      expect(slo).toContain(RECORDING_RULES.sliErrorRatioByTier(w));
    }
    const rows = panelsOf(d.slo).filter((p) => p.type === 'row').map((p) => p.title);
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatch(/sli_source="probe".*page/);
    expect(rows[1]).toMatch(/sli_source="load".*never pages/);
    expect(slo).toContain('/ 0.001');
    // The load-run panels read per-target series: each is filtered by the target variable, named
    // by its target in the legend, and never summed across targets.
    const loadPanels = panelsOf(d.slo).slice(panelsOf(d.slo).findIndex((p) => p.type === 'row' && /sli_source="load"/.test(p.title)) + 1);
    expect(loadPanels.length).toBeGreaterThan(0);
    for (const p of loadPanels) {
      for (const t of p.targets ?? []) {
        expect(t.expr, p.title).toContain('target=~"$target"');
        expect(t.legendFormat, p.title).toContain('{{target}}');
        for (const m of t.expr.matchAll(/\b(sum|min|max|avg)\s*(?:by\s*\(([^)]*)\)\s*)?\(/g)) expect(m[2] ?? '', t.expr).toContain('target');
      }
    }
    // The target variable offers load-tested targets too, not only probed ones.
    expect(variableExprs(d.slo).find((v) => v.name === 'target')?.expr).toContain(RUN_METRICS.sliEvents.name);
    expect(slo).not.toContain('latency_error_ratio');
    const withLatency = generateDashboards({ objective: 0.995, period: '28d', latencyObjectives: [{ operation: 'run', thresholdS: 2, objective: 0.99 }] });
    const text = exprsOf(withLatency.slo).join('\n');
    expect(text).toContain(`${RECORDING_RULES.latencyErrorRatioByTier('28d')}{target=~"$target",tier=~"$tier",operation="run",threshold_seconds="2"} / 0.01`);
    expect(text).toContain('/ 0.005');
  });

  it('follows the probe options: stale threshold and certificate colours', () => {
    const u = generateDashboards({ probeInterval: '5m', certExpiryWarning: '30d', certExpiryCritical: '7d' }).uptime;
    const age = panelsOf(u).find((p) => p.title === 'Last probe (age)') as unknown as { fieldConfig: { defaults: { thresholds: { steps: { value: number | null }[] } } } };
    expect(age.fieldConfig.defaults.thresholds.steps.map((s) => s.value)).toEqual([null, 600]);
    const cert = panelsOf(u).find((p) => p.title === 'Certificate days left') as unknown as { fieldConfig: { defaults: { thresholds: { steps: { value: number | null }[] } } } };
    expect(cert.fieldConfig.defaults.thresholds.steps.map((s) => s.value)).toEqual([null, 7, 30]);
  });

  it('renders as 2-space JSON with a final newline', () => {
    const text = renderDashboardJson(d.run);
    expect(text.endsWith('}\n')).toBe(true);
    expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(d.run)));
  });
});

describe('deploy/ dashboards', () => {
  const d = generateDashboards();
  const names = Object.keys(DASHBOARD_FILES) as (keyof typeof DASHBOARD_FILES)[];

  it('each deploy/grafana file provisions as it is: no __inputs, no ${DS_…}, a datasource variable', () => {
    for (const n of names) {
      const text = read(`deploy/grafana/${DASHBOARD_FILES[n]}`);
      expect(text).not.toContain('__inputs');
      expect(text).not.toContain('${DS_');
      const json = JSON.parse(text) as { id?: unknown; uid: string; templating: { list: { name: string; type: string }[] } };
      // A provisioned dashboard is keyed by uid; a fixed id would clash with the instance's own.
      expect(json.id ?? null).toBeNull();
      expect(json.uid).toBe(`flowgauge-${n}`);
      expect(json.templating.list[0]).toMatchObject({ name: DATASOURCE_VARIABLE, type: 'datasource' });
    }
  });

  it('the provisioning provider points Grafana at the dashboard files', () => {
    const docs = parseAllDocuments(read('deploy/grafana/provisioning/flowgauge.yaml')).map((x) => x.toJS() as Record<string, unknown>);
    expect(docs).toHaveLength(1);
    const provider = (docs[0] as { apiVersion: number; providers: { type: string; options: { path: string }; folder: string }[] }).providers[0];
    expect(provider).toMatchObject({ type: 'file', folder: 'flowgauge', options: { path: '/var/lib/grafana/dashboards/flowgauge' } });
  });

  it('the sidecar ConfigMaps hold exactly the dashboard files, labelled grafana_dashboard: "1"', () => {
    const text = read('deploy/kubernetes/flowgauge-dashboards-configmap.yaml');
    const texts = Object.fromEntries(names.map((n) => [n, renderDashboardJson(d[n])]));
    expect(text, 'regenerate with: node bin/flowgauge.mjs slo dashboards --format configmap --out deploy/kubernetes/flowgauge-dashboards-configmap.yaml').toBe(
      renderDashboardsConfigMap(texts),
    );
    const maps = parseAllDocuments(text).map((x) => x.toJS() as { kind: string; metadata: { name: string; labels: Record<string, string> }; data: Record<string, string> });
    expect(maps.map((m) => m.metadata.name)).toEqual(names.map((n) => `flowgauge-dashboard-${n}`));
    for (const [i, n] of names.entries()) {
      const m = maps[i];
      expect(m?.kind).toBe('ConfigMap');
      expect(m?.metadata.labels.grafana_dashboard).toBe('1');
      expect(m?.data).toEqual({ [DASHBOARD_FILES[n]]: read(`deploy/grafana/${DASHBOARD_FILES[n]}`) });
      // kubectl apply keeps a copy in an annotation limited to 256 KiB.
      expect(Buffer.byteLength(JSON.stringify(m))).toBeLessThan(200_000);
    }
  });
});
