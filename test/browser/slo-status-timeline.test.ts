/**
 * `flowgauge slo status --html` in a real browser: a 3-hour history of one-minute rounds with a
 * 30-minute outage of `run` (an incident), rendered through the CLI and opened in headless
 * Chromium. One bar per series, a cell per bucket coloured by outcome where the outage was,
 * incident cells marked, the budget line rising to the share the outage burned; no scripts, no
 * requests but the file. A screenshot lands in reports/screenshots/ for people to look at.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { TIMELINE_BUCKETS } from '../../src/probe/index.js';
import { rounds } from '../probe/helpers.js';

const CHROMIUM = '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const SCREENSHOT = resolve(import.meta.dirname, '../../reports/screenshots/slo-status.png');
const MISSING = `${CHROMIUM} not found: the slo status timeline browser test needs Chromium (install it with: apt-get install chromium)`;
const hasChromium = existsSync(CHROMIUM);
const inCi = process.env.CI === 'true';
if (!hasChromium && !inCi) console.warn(`SKIPPING test/browser/slo-status-timeline.test.ts: ${MISSING}`);

const AT = '2026-11-22T12:00:00.000Z';
const atMs = Date.parse(AT);
const WINDOW_MIN = 180;
/** Rounds 60..89 of 180 (one a minute) fail on `run`: buckets 30..44 of 90 (two minutes each). */
const OUTAGE = { from: 60, to: 90 };

describe.skipIf(!hasChromium && !inCi)('slo status --html timeline in headless Chromium', () => {
  const dir = mkdtempSync(join(tmpdir(), 'fg-slo-html-'));
  let browser: Browser | undefined;
  afterAll(async () => {
    await browser?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('draws a bar per series, the outage where it was, the incident marked and the budget burned', async () => {
    if (!hasChromium) throw new Error(MISSING);
    const recs = rounds(atMs - WINDOW_MIN * 60_000, WINDOW_MIN, ['listFlows', 'run'], (i, c) => c === 'run' && i >= OUTAGE.from && i < OUTAGE.to);
    mkdirSync(join(dir, 'h'));
    writeFileSync(join(dir, 'h', `probe-${AT.slice(0, 10)}.jsonl`), recs.map((r) => `${JSON.stringify(r)}\n`).join(''));
    const io = memoryIo({ cwd: dir });
    const code = await main(['slo', 'status', '--history', 'h', '--at', AT, '--window', '3h', '--html', '--out', 'status.html'], io);
    expect(code, io.err()).toBe(1);
    const file = join(dir, 'status.html');
    expect(readFileSync(file, 'utf8')).not.toMatch(/<script/i);
    const url = pathToFileURL(file).href;

    browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems: string[] = [];
    const requests: string[] = [];
    page.on('console', (m) => problems.push(`console.${m.type()}: ${m.text()}`));
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    page.on('request', (r) => requests.push(r.url()));
    await page.goto(url);

    // Page-side code as strings: this project compiles without the DOM library.
    const rows = (await page.evaluate(`[...document.querySelectorAll('.tl-row')].map((r) => ({
      name: r.dataset.series,
      cells: [...r.querySelectorAll('.cell')].map((c) => ({
        cls: c.className,
        bg: getComputedStyle(c).backgroundColor,
        width: c.getBoundingClientRect().width,
        height: c.getBoundingClientRect().height,
        title: c.getAttribute('title'),
      })),
    }))`)) as { name: string; cells: { cls: string; bg: string; width: number; height: number; title: string }[] }[];
    expect(problems).toEqual([]);
    expect(requests).toEqual([url]);
    expect(rows.map((r) => r.name)).toEqual(['overall', 'listFlows', 'run']);
    const RED = 'rgb(234, 67, 53)';
    const GREEN = 'rgb(52, 168, 83)';
    for (const r of rows) {
      expect(r.cells).toHaveLength(TIMELINE_BUCKETS);
      // Drawn, not just present: every cell has a visible box.
      for (const c of r.cells) expect(c.width * c.height, r.name).toBeGreaterThan(0);
    }
    const downAt = (name: string): number[] =>
      rows.find((r) => r.name === name)!.cells.flatMap((c, i) => (c.bg === RED ? [i] : []));
    const outageBuckets = Array.from({ length: (OUTAGE.to - OUTAGE.from) / 2 }, (_, k) => OUTAGE.from / 2 + k);
    expect(downAt('run')).toEqual(outageBuckets);
    expect(downAt('overall')).toEqual(outageBuckets);
    expect(downAt('listFlows')).toEqual([]);
    expect(rows.find((r) => r.name === 'listFlows')!.cells.every((c) => c.bg === GREEN)).toBe(true);
    // The incident (30 failures, closed by the next success) is marked on its cells, and only there.
    const marked = rows.find((r) => r.name === 'run')!.cells.flatMap((c, i) => (c.cls.includes('incident') ? [i] : []));
    expect(marked[0]).toBe(OUTAGE.from / 2);
    expect(marked.at(-1)).toBeLessThanOrEqual(OUTAGE.to / 2);
    expect(rows.find((r) => r.name === 'run')!.cells[OUTAGE.from / 2]!.title).toMatch(/0\.00 min up, 2\.00 min down \(incident\)/);

    // The budget: 30 min down against 0.18 min allowed over 3 h at 99.9 %: the line climbs past 100 %.
    const budget = (await page.evaluate(`(() => {
      const line = document.querySelector('svg.budget polyline.budget-line');
      const limit = document.querySelector('svg.budget line.budget-limit');
      const box = document.querySelector('svg.budget').getBoundingClientRect();
      return { points: line.points.numberOfItems, first: [line.points.getItem(0).x, line.points.getItem(0).y],
        last: [line.points.getItem(line.points.numberOfItems - 1).x, line.points.getItem(line.points.numberOfItems - 1).y],
        limitY: limit.y1.baseVal.value, height: box.height, label: document.querySelector('svg.budget').getAttribute('aria-label') };
    })()`)) as { points: number; first: [number, number]; last: [number, number]; limitY: number; height: number; label: string };
    expect(budget.points).toBe(TIMELINE_BUCKETS + 1);
    expect(budget.height).toBeGreaterThan(0);
    expect(budget.last[0]).toBe(1000);
    // Higher on the page (smaller y) than the dashed 100 % line: overspent.
    expect(budget.last[1]).toBeLessThan(budget.limitY);
    expect(budget.label).toMatch(/error budget burned: 16666\.7 % by the end of the window/);

    mkdirSync(resolve(SCREENSHOT, '..'), { recursive: true });
    await page.screenshot({ path: SCREENSHOT, fullPage: true });
    expect(existsSync(SCREENSHOT)).toBe(true);
  });
});
