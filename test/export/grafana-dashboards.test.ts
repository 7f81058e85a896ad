import { describe, expect, it } from 'vitest';
import { DASHBOARD_FILES, generateDashboards, renderDashboardJson, type GrafanaDashboard } from '../../src/slo/grafana-dashboards.js';
import { ALL_METRICS, RECORDING_RULES } from '../../src/slo/metric-names.js';

interface Panel {
  id: number;
  type: string;
  title: string;
  gridPos: { x: number; y: number; w: number; h: number };
  datasource: { uid: string };
  targets: { expr: string; refId: string; datasource: { uid: string } }[];
}

const panelsOf = (d: GrafanaDashboard) => d.panels as Panel[];
const exprsOf = (d: GrafanaDashboard) => panelsOf(d).flatMap((p) => p.targets.map((t) => t.expr));

/** Metric names an expression reads: every flowgauge_… or flowgauge:… identifier. */
function namesIn(expr: string): string[] {
  return [...expr.matchAll(/\bflowgauge[_:][a-zA-Z0-9_:]*/g)].map((m) => m[0]);
}

const KNOWN = new Set<string>();
for (const m of ALL_METRICS) {
  KNOWN.add(m.name);
  if (m.type === 'histogram') for (const s of ['_bucket', '_sum', '_count']) KNOWN.add(m.name + s);
}
for (const w of ['5m', '30m', '1h', '2h', '6h', '1d', '3d', '30d']) for (const f of Object.values(RECORDING_RULES)) KNOWN.add(f(w));

describe('generateDashboards', () => {
  const d = generateDashboards();

  it('builds three importable dashboards with a Prometheus datasource input', () => {
    expect(Object.keys(d).sort()).toEqual(['run', 'slo', 'uptime']);
    expect(Object.keys(DASHBOARD_FILES).sort()).toEqual(['run', 'slo', 'uptime']);
    const uids = new Set<unknown>();
    for (const db of Object.values(d)) {
      expect(db.__inputs).toEqual([expect.objectContaining({ name: 'DS_PROMETHEUS', type: 'datasource', pluginId: 'prometheus' })]);
      expect(typeof db.uid).toBe('string');
      expect(typeof db.title).toBe('string');
      expect(db.schemaVersion).toBeGreaterThanOrEqual(36);
      uids.add(db.uid);
      for (const p of panelsOf(db)) {
        expect(p.datasource.uid).toBe('${DS_PROMETHEUS}');
        expect(p.targets.length).toBeGreaterThan(0);
        for (const t of p.targets) expect(t.datasource.uid).toBe('${DS_PROMETHEUS}');
      }
    }
    expect(uids.size).toBe(3);
  });

  it('lays panels out on the 24-column grid without overlaps', () => {
    for (const db of Object.values(d)) {
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
    for (const db of Object.values(d)) {
      for (const expr of exprsOf(db)) {
        for (const n of namesIn(expr)) expect(KNOWN.has(n), `${n} in ${expr}`).toBe(true);
      }
    }
  });

  it('filters by regex-matched template variables', () => {
    const vars = (db: GrafanaDashboard) => ((db.templating as { list: { name: string; allValue: string }[] }).list).map((v) => v.name);
    expect(vars(d.run)).toEqual(['tier', 'operation']);
    expect(vars(d.slo)).toEqual(['tier']);
    expect(vars(d.uptime)).toEqual(['check']);
    for (const db of Object.values(d)) {
      for (const expr of exprsOf(db)) {
        for (const m of expr.matchAll(/(\w+)(=~?|!=)"\$(\w+)"/g)) expect(m[2], expr).toBe('=~');
      }
    }
  });

  it('shows every window of the rules, and latency panels for latency objectives', () => {
    const slo = exprsOf(d.slo).join('\n');
    for (const w of ['5m', '30m', '1h', '2h', '6h', '1d', '3d', '30d']) expect(slo).toContain(RECORDING_RULES.sliErrorRatioByTier(w));
    expect(slo).toContain('/ 0.001');
    expect(slo).not.toContain('latency_error_ratio');
    const withLatency = generateDashboards({ objective: 0.995, period: '28d', latencyObjectives: [{ operation: 'run', thresholdS: 2, objective: 0.99 }] });
    const text = exprsOf(withLatency.slo).join('\n');
    expect(text).toContain(`${RECORDING_RULES.latencyErrorRatioByTier('28d')}{tier=~"$tier",target="run",threshold_seconds="2"} / 0.01`);
    expect(text).toContain('/ 0.005');
  });

  it('renders as 2-space JSON with a final newline', () => {
    const text = renderDashboardJson(d.run);
    expect(text.endsWith('}\n')).toBe(true);
    expect(JSON.parse(text)).toEqual(d.run);
  });
});
