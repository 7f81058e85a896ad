/**
 * A real Prometheus for tests: started on a free loopback port with a generated config,
 * queried over its HTTP API, polled with deadlines (never fixed sleeps), and stopped.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { freePort } from '../../helpers/free-port.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { GrafanaDashboard } from '../../../src/slo/grafana-dashboards.js';

/** A running Prometheus. */
export interface TestPrometheus {
  readonly api: string;
  /** Instant query; throws on a query error, returns the result vector. */
  query(expr: string): Promise<unknown[]>;
  /** Polls `check` every 250 ms until it returns true; fails with `describe()` and the log tail at the deadline. */
  until(check: () => Promise<boolean>, describe: () => string, deadlineMs?: number): Promise<void>;
  /** Resolves once a scrape target is up. */
  targetUp(): Promise<void>;
  stop(): Promise<void>;
}

export { freePort };

/** One scrape job of a test Prometheus. */
export interface ScrapeJob {
  readonly name: string;
  readonly targets: readonly string[];
  /** Keep the scraped `job`/`instance` labels (as a Pushgateway must be scraped). */
  readonly honorLabels?: boolean;
}

/**
 * Starts Prometheus scraping `targets` (host:port) every second as the job `flowgauge`, and any
 * further `jobs`, with `rulesYaml` loaded; `honorLabels` keeps the scraped `job`/`instance`
 * labels of the `flowgauge` job (as a Pushgateway must be scraped).
 */
export async function startPrometheus(opts: { targets: readonly string[]; rulesYaml?: string; honorLabels?: boolean; jobs?: readonly ScrapeJob[] }): Promise<TestPrometheus> {
  const dir = mkdtempSync(join(tmpdir(), 'flowgauge-prom-'));
  if (opts.rulesYaml !== undefined) writeFileSync(join(dir, 'rules.yml'), opts.rulesYaml);
  const jobs: ScrapeJob[] = [...(opts.targets.length > 0 ? [{ name: 'flowgauge', targets: opts.targets, honorLabels: opts.honorLabels === true }] : []), ...(opts.jobs ?? [])];
  writeFileSync(
    join(dir, 'prometheus.yml'),
    [
      'global: { scrape_interval: 1s, evaluation_interval: 1s }',
      opts.rulesYaml !== undefined ? 'rule_files: [rules.yml]' : '',
      'scrape_configs:',
      ...jobs.flatMap((j) => [
        `  - job_name: ${j.name}`,
        j.honorLabels === true ? '    honor_labels: true' : '',
        `    static_configs: [{ targets: [${j.targets.map((t) => `'${t}'`).join(', ')}] }]`,
      ]),
      '',
    ].join('\n'),
  );
  const port = await freePort();
  const api = `http://127.0.0.1:${port}`;
  let log = '';
  const prom: ChildProcess = spawn(
    'prometheus',
    [`--config.file=${join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`, '--log.level=warn'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  prom.stdout?.on('data', (b: Buffer) => (log += b.toString()));
  prom.stderr?.on('data', (b: Buffer) => (log += b.toString()));

  const query = async (expr: string): Promise<unknown[]> => {
    const res = await fetch(`${api}/api/v1/query?query=${encodeURIComponent(expr)}`);
    const body = (await res.json()) as { status: string; error?: string; data?: { result: unknown[] } };
    if (body.status !== 'success') throw new Error(`query failed: ${expr}: ${body.error ?? res.status}`);
    return body.data?.result ?? [];
  };

  const until = async (check: () => Promise<boolean>, describe: () => string, deadlineMs = 25_000): Promise<void> => {
    const end = Date.now() + deadlineMs;
    for (;;) {
      if (prom.exitCode !== null) throw new Error(`prometheus exited ${prom.exitCode}:\n${log.slice(-2000)}`);
      try {
        if (await check()) return;
      } catch {
        // not up yet
      }
      if (Date.now() > end) throw new Error(`${describe()}\n--- prometheus log (tail) ---\n${log.slice(-2000)}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  };

  return {
    api,
    query,
    until,
    targetUp: () =>
      until(
        async () => {
          const res = await fetch(`${api}/api/v1/targets`);
          const body = (await res.json()) as { data: { activeTargets: { health: string }[] } };
          return body.data.activeTargets.some((t) => t.health === 'up');
        },
        () => 'the flowgauge target never came up',
      ),
    async stop() {
      if (prom.exitCode === null) {
        const exited = new Promise((r) => prom.once('exit', r));
        prom.kill('SIGTERM');
        const timer = setTimeout(() => prom.kill('SIGKILL'), 5000);
        await exited;
        clearTimeout(timer);
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Grafana's variables replaced by values PromQL accepts: built-in intervals, and "All" (`.*`) for every template variable. */
export function substitute(expr: string): string {
  return expr
    .replaceAll('$__rate_interval', '1m')
    .replaceAll('$__range', '1h')
    .replaceAll('$__interval', '15s')
    .replace(/\$(?!__)([A-Za-z_]\w*)\b/g, '.*');
}

/** Every panel query of a dashboard (rows, which hold no queries, are skipped). */
export function panelExprs(d: GrafanaDashboard): { title: string; expr: string }[] {
  return (d.panels ?? []).flatMap((p) => ('targets' in p ? (p.targets ?? []).map((t) => ({ title: p.title ?? '', expr: String((t as { expr?: unknown }).expr) })) : []));
}

/** Every annotation query of a dashboard (Grafana's built-in one has none). */
export function annotationExprs(d: GrafanaDashboard): { title: string; expr: string }[] {
  return (d.annotations?.list ?? []).flatMap((a) => {
    const expr = (a.target as { expr?: unknown } | undefined)?.expr;
    return typeof expr === 'string' ? [{ title: `annotation ${a.name}`, expr }] : [];
  });
}

/** Every template variable query as a PromQL query answering when the variable has values: `count by (label) (metric)`. */
export function variableExprs(d: GrafanaDashboard): { title: string; name: string; expr: string }[] {
  return (d.templating?.list ?? []).flatMap((v) => {
    const query = (v.query as { query?: unknown } | undefined)?.query;
    const m = typeof query === 'string' ? /^label_values\((.+), (\w+)\)$/.exec(query) : null;
    return m === null ? [] : [{ title: `variable ${v.name}`, name: v.name, expr: `count by (${m[2]}) (${m[1]})` }];
  });
}
