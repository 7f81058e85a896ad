/**
 * report.html in a real browser: a short run against the embedded service (with throttling,
 * server errors and streams, so every chart has something to draw), rendered and opened in
 * headless Chromium. No console errors, no request but the file itself, every chart drawn
 * with data; a screenshot lands in reports/screenshots/ for people to look at.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import type { Browser } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { createClient } from '../../src/api/index.js';
import { renderReportFiles } from '../../src/cli/report-formats.js';
import type { Report } from '../../src/report/model.js';
import { executeRun } from '../../src/run/index.js';
import { resolveScenario } from '../../src/scenario/index.js';
import { startReferenceService } from '../../src/target/index.js';

const CHROMIUM = '/usr/bin/chromium';
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const SCREENSHOT = resolve(import.meta.dirname, '../../reports/screenshots/html-report.png');
const MISSING = `${CHROMIUM} not found: the HTML report browser test needs Chromium (install it with: apt-get install chromium)`;
const hasChromium = existsSync(CHROMIUM);
const inCi = process.env.CI === 'true';
if (!hasChromium && !inCi) console.warn(`SKIPPING test/browser/html-report.test.ts: ${MISSING}`);

/** A 4-second run at 20/s against a limit of 30 per 2-s window, with 8 % of runs failing with 503. */
async function realReport(): Promise<Report> {
  const token = 'fg_browser_test';
  const service = await startReferenceService({
    tokens: { [token]: { account: 'acct_b', tier: { limitPerMinute: 900 } } },
    rateLimit: { windowMs: '2s' },
    latency: { ttftMs: 15, itlMs: 3, tokens: { min: 4, max: 10 }, runOverheadMs: 1 },
    faults: { errors: { run: { rate: 0.08, status: 503 } } },
  });
  const client = createClient({ baseUrl: service.baseUrl, token, webhookHost: service.webhookHost });
  try {
    const scenario = resolveScenario({
      name: 'browser-check',
      tier: { limitPerMinute: 900 },
      load: { executor: 'constant-arrival-rate', rate: '20/s', duration: '4s', gracefulStop: '5s' },
      mix: [
        { op: 'run', input: 'hello', weight: 2 },
        { op: 'stream', input: 'count', weight: 2 },
        { op: 'listFlows' },
      ],
      thresholds: { availability: '>= 99.9%', 'stream.ttft.p95': '< 1s' },
    });
    const outcome = await executeRun({ scenario, client, target: { baseUrl: service.baseUrl, embedded: true } });
    return outcome.report;
  } finally {
    await client.close();
    await service.close();
  }
}

describe.skipIf(!hasChromium && !inCi)('report.html in headless Chromium', () => {
  const dir = mkdtempSync(join(tmpdir(), 'fg-html-'));
  let browser: Browser | undefined;
  afterAll(async () => {
    await browser?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('loads without errors or requests and draws every chart with data', async () => {
    if (!hasChromium) throw new Error(MISSING);
    const report = await realReport();
    expect(report.rateLimit.responses429).toBeGreaterThan(0);
    expect(report.stream.count).toBeGreaterThan(0);
    const files = await renderReportFiles(report);
    const file = join(dir, 'report.html');
    writeFileSync(file, files['report.html'] as string);
    const url = pathToFileURL(file).href;

    browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems: string[] = [];
    const requests: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') problems.push(`console.${m.type()}: ${m.text()}`);
    });
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    page.on('request', (r) => requests.push(r.url()));
    await page.goto(url);
    // Page-side code as strings: this project compiles without the DOM library.
    await page.waitForFunction('window.__flowgaugeCharts !== undefined', undefined, { timeout: 10_000 });

    const charts = (await page.evaluate('window.__flowgaugeCharts')) as {
      id: string;
      canvas: boolean;
      points: number;
      series: { label: string; values: number }[];
    }[];
    const placeholders = (await page.evaluate(
      "[...document.querySelectorAll('.plot')].map((e) => [e.id, e.querySelectorAll('canvas').length])",
    )) as [string, number][];
    expect(problems).toEqual([]);
    expect(requests).toEqual([url]);
    expect(charts.map((c) => c.id).sort()).toEqual(placeholders.map(([id]) => id).sort());
    expect(placeholders.every(([, canvases]) => canvases > 0)).toBe(true);
    const ids = charts.map((c) => c.id);
    for (const id of ['chart-latency-run', 'chart-latency-stream', 'chart-latency-listFlows', 'chart-dist-stream-ttft', 'chart-dist-stream-itl', 'chart-rate', 'chart-budget']) {
      expect(ids).toContain(id);
    }
    for (const c of charts) {
      expect(c.canvas, c.id).toBe(true);
      expect(c.points, c.id).toBeGreaterThan(1);
      for (const s of c.series) expect(s.values, `${c.id} ${s.label}`).toBeGreaterThan(0);
    }
    const verdict = await page.textContent('.verdict .word');
    expect(verdict).toBe(report.passed ? 'PASS' : 'FAIL');

    mkdirSync(resolve(SCREENSHOT, '..'), { recursive: true });
    await page.screenshot({ path: SCREENSHOT, fullPage: true });
    expect(existsSync(SCREENSHOT)).toBe(true);
  });
});
