/**
 * `flowgauge run --dashboard` in a real browser: the page opens during a run against the
 * embedded service, updates as ticks arrive (the count of updates and the chart data grow),
 * loads nothing but its own feed, logs no console error, and links the final report at the end.
 * Operations, thresholds and checks are live; the availability axis reads in percent; the page's
 * last state is the report's (tile, banner and tables agree with report.json). A screenshot lands
 * in reports/screenshots/ for people to look at.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import type { Report } from '../../src/report/index.js';
import { startReferenceService } from '../../src/target/index.js';

const CHROMIUM = '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const MISSING = `${CHROMIUM} not found: the dashboard browser test needs Chromium (install it with: apt-get install chromium)`;
const hasChromium = existsSync(CHROMIUM);
const inCi = process.env.CI === 'true';
if (!hasChromium && !inCi) console.warn(`SKIPPING test/browser/dashboard.test.ts: ${MISSING}`);

const dir = mkdtempSync(join(tmpdir(), 'fg-dashboard-'));
const SCREENSHOT = resolve(import.meta.dirname, '../../reports/screenshots/dashboard.png');
let browser: Browser | undefined;
afterAll(async () => {
  await browser?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The dashboard's URL, printed once its server listens (before the schedule starts). */
async function dashboardUrl(out: () => string): Promise<string | undefined> {
  let url: string | undefined;
  for (let i = 0; i < 400 && url === undefined; i++) {
    url = /live dashboard at (\S+)/.exec(out())?.[1];
    if (url === undefined) await new Promise((r) => setTimeout(r, 25));
  }
  return url;
}

/** A table's body as text cells. */
const cells = (page: import('playwright-core').Page, id: string): Promise<string[][]> =>
  page.$$eval(`#${id} tbody tr`, (rows) => rows.map((r) => [...r.querySelectorAll('td')].map((td) => td.textContent ?? '')));

describe.skipIf(!hasChromium && !inCi)('live dashboard', () => {
  it('updates every second during a run and links the report at the end', async () => {
    if (!hasChromium) throw new Error(MISSING);
    const scenario = join(dir, 'live.json');
    writeFileSync(
      scenario,
      JSON.stringify({ name: 'live', tier: 'pro', load: { rate: '10/s', duration: '6s' }, mix: [{ op: 'stream', weight: 1 }, { op: 'listFlows', weight: 1 }] }),
    );
    // Chromium starts before the run, so a slow start on a busy machine does not eat the run's ticks.
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
    const io = memoryIo({ cwd: dir });
    const run = main(['run', scenario, '--dashboard', '0', '--out', join(dir, 'out'), '--quiet'], io);

    // The URL is printed once the server listens, before the schedule starts.
    const url = await dashboardUrl(() => io.out());
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);

    const page = await browser.newPage();
    const errors: string[] = [];
    const foreign: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('request', (r) => {
      if (!r.url().startsWith(url as string)) foreign.push(r.url());
    });
    await page.goto(url as string);
    // Two different update counts seen while the run goes on: the page follows the run.
    const ticks = async (): Promise<number> => Number(await page.textContent('#ticks'));
    await expect.poll(ticks, { timeout: 10_000 }).toBeGreaterThanOrEqual(1);
    const first = await ticks();
    await expect.poll(ticks, { timeout: 10_000 }).toBeGreaterThan(first);
    const rps = await page.textContent('#rps');
    expect(Number(rps)).toBeGreaterThan(0);

    const code = await run;
    expect(code).toBe(0);
    await page.waitForSelector('#verdict.PASS', { timeout: 10_000 });
    expect(await page.isVisible('#report')).toBe(true);
    expect(await page.textContent('#verdict')).toContain('PASS');
    expect(errors).toEqual([]);
    expect(foreign).toEqual([]);
  }, 60_000);

  it('shows operations, thresholds and checks live, availability in percent, and ends on the report\'s figures', async () => {
    if (!hasChromium) throw new Error(MISSING);
    const token = 'fg_dashboard_live_0123456789';
    // Every getUsage waits 2 s and the scenario's deadline is 300 ms: its requests time out (bad),
    // those of the last 300 ms after the last tick, so the run's end changes its availability.
    const service = await startReferenceService({ latency: 'none', tokens: { [token]: { account: 'acct_b', tier: { limitPerMinute: 100_000 } } }, faults: { latencyMs: { getUsage: 2000 } } });
    try {
      const scenario = join(dir, 'live-ops.json');
      writeFileSync(
        scenario,
        JSON.stringify({
          name: 'live-ops',
          tier: 'pro',
          load: { rate: '20/s', duration: '4s' },
          timeouts: { getUsage: '300ms' },
          steps: [
            { op: 'listFlows', check: { 'flows listed': { path: 'flows.length', min: 1 } } },
            { op: 'getUsage', query: { period: '7d' } },
          ],
          thresholds: { 'listFlows.latency.p99': '<5s', availability: '>=99%', checks: '>=99%' },
        }),
      );
      browser ??= await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
      const io = memoryIo({ cwd: dir });
      const out = join(dir, 'out-ops');
      const run = main(['run', scenario, '--base-url', service.baseUrl, '--token', token, '--dashboard', '0', '--out', out, '--quiet', '--no-audit'], io);
      const url = await dashboardUrl(() => io.out());
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
      const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(e.message));
      page.on('console', (m) => {
        if (m.type() === 'error') errors.push(m.text());
      });
      await page.goto(url as string);

      // Live, while the run goes on: a row per operation, every threshold judged, the check counted.
      await expect.poll(async () => (await cells(page, 'ops')).map((r) => r[0]).sort(), { timeout: 10_000 }).toEqual(['getUsage', 'listFlows']);
      // Each column says what it covers: counts of the run so far beside the last second's latency.
      // Read with the banner in one go (a busy machine may end the run meanwhile): live heads while
      // there is no verdict, the whole run's once there is.
      const heads = (): Promise<string[]> => page.$$eval('#ops thead th', (ths) => ths.map((th) => th.textContent ?? ''));
      const snap = (await page.evaluate(
        "({ verdict: document.getElementById('verdict').textContent, heads: [...document.querySelectorAll('#ops thead th')].map((t) => t.textContent), when: document.getElementById('ops-when').textContent })",
      )) as { verdict: string; heads: string[]; when: string };
      const live = snap.verdict === '';
      expect(snap.heads).toEqual(live ? ['operation', 'requestsrun so far', 'badrun so far', '429run so far', 'p50last second', 'p99last second'] : ['operation', 'requestswhole run', 'badwhole run', '429whole run', 'p50whole run', 'p99whole run']);
      expect(snap.when).toBe(live ? 'counts of the run so far, latency of the last second' : 'counts and latency of the whole run');
      await expect.poll(async () => (await cells(page, 'thresholds')).map((r) => r[0]), { timeout: 10_000 }).toEqual(['listFlows.latency.p99', 'availability', 'checks']);
      await expect.poll(async () => Number((await cells(page, 'checks'))[0]?.[1] ?? 0), { timeout: 10_000 }).toBeGreaterThan(0);
      expect(await page.textContent('#verdict')).toBe('');
      // No cursor on a chart: its legend names the series, with no placeholder value beside them.
      const legendValues = (): Promise<string[]> =>
        page.$$eval('.u-legend .u-value', (els) => els.filter((e) => (globalThis as unknown as { getComputedStyle(x: unknown): { display: string } }).getComputedStyle(e).display !== 'none').map((e) => e.textContent ?? ''));
      expect(await legendValues()).toEqual([]);
      expect((await page.$$eval('.u-legend th', (els) => els.filter((e) => (globalThis as unknown as { getComputedStyle(x: unknown): { display: string } }).getComputedStyle(e).display !== 'none').map((e) => e.textContent ?? ''))).join(' ')).not.toMatch(/—|–|--|Value/);
      // The availability axis in percent, with the decimals its spacing needs.
      const ticks = await page.evaluate(() => {
        const d = (globalThis as unknown as { flowgaugeDashboard: { percentTicks: (u: unknown, s: number[]) => string[]; availabilityAxisTicks: () => unknown } }).flowgaugeDashboard;
        return { fine: d.percentTicks(null, [0.999, 0.9995, 1]), coarse: d.percentTicks(null, [0.5, 0.75, 1]), same: d.availabilityAxisTicks() === d.percentTicks };
      });
      expect(ticks).toEqual({ fine: ['99.90 %', '99.95 %', '100.00 %'], coarse: ['50 %', '75 %', '100 %'], same: true });

      const code = await run;
      expect(code).toBe(1);
      const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as Report;
      await page.waitForSelector('#verdict.FAIL', { timeout: 10_000 });
      const pct = (v: number | null): string => (v === null ? '–' : v === 1 ? '100 %' : `${(v * 100).toFixed(3)} %`);
      // The last state is the report's: the tile says what the banner and report.json say.
      expect(await page.textContent('#availability')).toBe(pct(report.slo.availability));
      expect(await page.textContent('#verdict')).toContain(`availability ${pct(report.slo.availability)}`);
      expect(await page.textContent('#started')).toBe(String(report.load.started));
      expect(await cells(page, 'thresholds')).toEqual(report.thresholds.map((t) => [t.metric, expect.any(String), expect.any(String), t.passed ? 'pass' : 'FAIL']));
      expect(await heads()).toEqual(['operation', 'requestswhole run', 'badwhole run', '429whole run', 'p50whole run', 'p99whole run']);
      expect(await page.textContent('#ops-when')).toBe('counts and latency of the whole run');
      expect(await legendValues()).toEqual([]);
      const opRows = await cells(page, 'ops');
      for (const [op, o] of Object.entries(report.ops)) expect(opRows.find((r) => r[0] === op)?.slice(1, 3)).toEqual([String(o?.count), String(o?.bad)]);
      const check = report.checks?.['flows listed'];
      expect((await cells(page, 'checks'))[0]?.slice(0, 3)).toEqual(['flows listed', String(check?.passes), String(check?.fails)]);
      expect(errors).toEqual([]);

      mkdirSync(dirname(SCREENSHOT), { recursive: true });
      await page.screenshot({ path: SCREENSHOT, fullPage: true });
      expect(statSync(SCREENSHOT).size).toBeGreaterThan(10_000);
    } finally {
      await service.close();
    }
  }, 90_000);
});
