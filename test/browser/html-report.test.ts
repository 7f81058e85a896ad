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
import { fixtureReport } from '../report/fixture.js';

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

  it('draws p50, p90 and p99 visibly when they are equal, legends without placeholders, and a partial last slice as partial', async () => {
    if (!hasChromium) throw new Error(MISSING);
    // Every stream of the fixture takes 300 ms: each slice's p50, p90 and p99 are one value. The
    // schedule ends half-way through its 60th second (59.5 s), so the last slice is half a one.
    const base = fixtureReport();
    const report: Report = { ...base, load: { ...base.load, scheduleS: 59.5 } };
    const last = report.slices.at(-1);
    expect(last?.t).toBe(59);
    const files = await renderReportFiles(report);
    const file = join(dir, 'fixture.html');
    writeFileSync(file, files['report.html'] as string);
    browser ??= await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(pathToFileURL(file).href);
    await page.waitForFunction('window.__flowgaugeCharts !== undefined', undefined, { timeout: 10_000 });

    // Pixels of each percentile's colour on the stream chart, where all three coincide.
    const COLOURS = { p50: [45, 164, 78], p90: [191, 135, 0], p99: [207, 34, 46] };
    const counts = (await page.evaluate(`(() => {
      const c = document.querySelector('#chart-latency-stream canvas');
      const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      const want = ${JSON.stringify(COLOURS)};
      const out = {};
      for (const [k, [r, g, b]] of Object.entries(want)) {
        let n = 0;
        for (let i = 0; i < d.length; i += 4) if (Math.abs(d[i] - r) + Math.abs(d[i + 1] - g) + Math.abs(d[i + 2] - b) < 40 && d[i + 3] > 200) n++;
        out[k] = n;
      }
      return out;
    })()`)) as Record<'p50' | 'p90' | 'p99', number>;
    for (const k of ['p50', 'p90', 'p99'] as const) expect(counts[k], `${k} pixels on a chart where p50 = p90 = p99`).toBeGreaterThan(100);

    // No cursor: each legend names its series and shows no value, so no placeholder ('—', '--').
    const shownValues = (): Promise<string[]> =>
      page.$$eval('.u-legend .u-value', (els) => els.filter((e) => (globalThis as unknown as { getComputedStyle(x: unknown): { display: string } }).getComputedStyle(e).display !== 'none').map((e) => e.textContent ?? ''));
    expect(await shownValues()).toEqual([]);
    const labels = await page.$$eval('.chart .u-legend th', (els) => els.filter((e) => (globalThis as unknown as { getComputedStyle(x: unknown): { display: string } }).getComputedStyle(e).display !== 'none').map((e) => e.textContent ?? ''));
    expect(labels.join(' ')).not.toMatch(/—|--/);
    // On the chart: the values under the cursor.
    const plot = await page.$('#chart-latency-stream');
    await plot?.scrollIntoViewIfNeeded();
    const box = await plot?.boundingBox();
    if (box === null || box === undefined) throw new Error('no stream chart');
    await page.mouse.move(box.x + box.width / 2, box.y + 60);
    const hovered = await page.$$eval('#chart-latency-stream .u-legend .u-value', (els) => els.map((e) => e.textContent ?? ''));
    expect(hovered).toHaveLength(4);
    for (const v of hovered.slice(1)) expect(v).toMatch(/^300 ms$/);

    // The last slice: its rate per second of its half second (no collapse), the time axis ending
    // where the schedule did, and its part shaded.
    const charts = (await page.evaluate('window.__flowgaugeCharts')) as { id: string; partial: { fromS: number; toS: number } | null }[];
    for (const id of ['chart-rate', 'chart-latency-run', 'chart-latency-stream']) expect(charts.find((c) => c.id === id)?.partial, id).toEqual({ fromS: 59, toS: 59.5 });
    const grey = (await page.evaluate(`(() => {
      const c = document.querySelector('#chart-rate canvas');
      const d = c.getContext('2d').getImageData(c.width - 120, 0, 100, c.height).data;
      let n = 0;
      for (let i = 0; i < d.length; i += 4) if (d[i] > 200 && d[i] < 245 && Math.abs(d[i] - d[i + 1]) < 8 && d[i + 2] >= d[i] && d[i + 3] > 200) n++;
      return n;
    })()`)) as number;
    expect(grey, 'the partial slice is shaded').toBeGreaterThan(1000);
    const data = JSON.parse((await page.textContent('#fg-chart-data')) ?? '{}') as { rate: { requestsPerS: number[] } };
    expect(data.rate.requestsPerS.at(-1)).toBe((last?.requests ?? 0) / 0.5);
    expect(await page.textContent('#ratelimit .caption')).toContain("The last point holds the schedule's final 0.5 s (shaded): its rates are per second of that part.");
  });
});
