/**
 * `flowgauge run --dashboard` in a real browser: the page opens during a run against the
 * embedded service, updates as ticks arrive (the count of updates and the chart data grow),
 * loads nothing but its own feed, logs no console error, and links the final report at the end.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';

const CHROMIUM = '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const MISSING = `${CHROMIUM} not found: the dashboard browser test needs Chromium (install it with: apt-get install chromium)`;
const hasChromium = existsSync(CHROMIUM);
const inCi = process.env.CI === 'true';
if (!hasChromium && !inCi) console.warn(`SKIPPING test/browser/dashboard.test.ts: ${MISSING}`);

const dir = mkdtempSync(join(tmpdir(), 'fg-dashboard-'));
let browser: Browser | undefined;
afterAll(async () => {
  await browser?.close();
  rmSync(dir, { recursive: true, force: true });
});

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
    let url: string | undefined;
    for (let i = 0; i < 200 && url === undefined; i++) {
      url = /live dashboard at (\S+)/.exec(io.out())?.[1];
      if (url === undefined) await new Promise((r) => setTimeout(r, 25));
    }
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
});
