/**
 * The live dashboard: a page on 127.0.0.1 fed once a second (`outputs/dashboard-output.ts`), and
 * the final report at `/report` once written. Over worker threads each worker sends the window
 * it saw since its last tick; the main thread merges them and publishes on the merged progress
 * (`createDashboardRelay`).
 */
import { startDashboardServer } from '../../export/dashboard-server.js';
import { renderDashboardPage } from '../../report/dashboard-page.js';
import type { HtmlAssets } from '../../report/index.js';
import { createDashboardOutput, createDashboardRelay, createDashboardWindowOutput, type DashboardWindow } from '../outputs/dashboard-output.js';
import type { Exporter } from './exporter.js';

/** Where the dashboard is served, and what it needs. */
export interface DashboardWish {
  /** Its port on 127.0.0.1 (0 picks a free one). */
  readonly port: number;
  /** uPlot's script and style, inlined in the page. */
  readonly assets: HtmlAssets;
  /** The final report's HTML, once written (served at `/report` at the end). */
  readonly reportHtml?: (() => string | undefined) | undefined;
}

/** The dashboard exporter. */
export const dashboardExporter: Exporter<'dashboard', DashboardWish> = {
  name: 'dashboard',
  async start(wish, ctx) {
    const { plan } = ctx;
    const server = await startDashboardServer({ port: wish.port, page: renderDashboardPage(plan.name, wish.assets) });
    ctx.log.write(`flowgauge: live dashboard at ${server.url}\n`);
    const feed = { name: plan.name, objective: plan.objective, publish: (m: unknown) => server.publish(m) };
    const linkReport = (): void => {
      const html = wish.reportHtml?.();
      if (html !== undefined) server.setReport(html);
    };
    if (ctx.workers <= 1) return { output: createDashboardOutput(feed), end: linkReport, close: () => server.close() };
    const relay = createDashboardRelay(feed);
    relay.start(plan.scenarios.map((s) => s.name));
    return {
      brief: true,
      collect: (_worker, window) => relay.add(window as DashboardWindow),
      tick: (p) => relay.tick(p),
      end(report) {
        relay.end(report);
        linkReport();
      },
      close: () => server.close(),
    };
  },
  async inWorker() {
    // The window fills from samples and is taken by the tick that sends it.
    let window: DashboardWindow | undefined;
    return {
      output: createDashboardWindowOutput((w) => (window = w)),
      snapshot() {
        const w = window;
        window = undefined;
        return w;
      },
    };
  },
};
