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
const SCREENSHOT_30D = resolve(import.meta.dirname, '../../reports/screenshots/slo-status-30d.png');
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

  it('over 30 days with 3 hours of records: cells sized to the data, one warning naming the series, a labelled budget axis', async () => {
    if (!hasChromium) throw new Error(MISSING);
    // Rounds a minute apart that claim 30 s each: every series has late records, one finding.
    const recs = rounds(atMs - 180 * 60_000, 180, ['listFlows', 'run'], (i, c) => c === 'run' && i >= 100 && i < 110, 60_000).map((r) => ({ ...r, intervalMs: 30_000 }));
    mkdirSync(join(dir, 'h30'));
    writeFileSync(join(dir, 'h30', `probe-${AT.slice(0, 10)}.jsonl`), recs.map((r) => `${JSON.stringify(r)}\n`).join(''));
    const io = memoryIo({ cwd: dir });
    const code = await main(['slo', 'status', '--history', 'h30', '--at', AT, '--window', '30d', '--html', '--out', 'status-30d.html'], io);
    // Judged over the observed minutes only, the outage misses 99.9 %.
    expect(code, io.err()).toBe(1);
    const url = pathToFileURL(join(dir, 'status-30d.html')).href;
    browser ??= await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems: string[] = [];
    page.on('console', (m) => problems.push(`console.${m.type()}: ${m.text()}`));
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    await page.goto(url);

    const rows = (await page.evaluate(`[...document.querySelectorAll('.tl-row')].map((r) => ({
      name: r.dataset.series,
      cells: [...r.querySelectorAll('.cell')].map((c) => ({ cls: c.className, width: c.getBoundingClientRect().width })),
    }))`)) as { name: string; cells: { cls: string; width: number }[] }[];
    expect(problems).toEqual([]);
    expect(rows.map((r) => r.name)).toEqual(['overall', 'listFlows', 'run']);
    for (const r of rows) {
      // 3 h of a 30-day window in its fine buckets of 15 min: about 12 cells, every one observed.
      expect(r.cells.length, r.name).toBeGreaterThanOrEqual(12);
      expect(r.cells.length, r.name).toBeLessThanOrEqual(13);
      expect(r.cells.filter((c) => c.cls.includes('none')), r.name).toEqual([]);
      for (const c of r.cells) expect(c.width, r.name).toBeGreaterThan(40);
    }
    expect(rows.find((r) => r.name === 'run')!.cells.some((c) => c.cls.includes('down') || c.cls.includes('partial'))).toBe(true);
    const legend = (await page.evaluate(`document.querySelector('.legend').textContent`)) as string;
    // The first record's time, not the first cell's (which may begin a little before it).
    expect(legend).toMatch(/Each cell is 15\.0 min\. No records before 2026-11-22T09:00:00\.000Z, the first in the window: the timeline starts at 2026-11-22T0[89]:\d\d:00\.000Z \(the window began 2026-10-23T12:00:00\.000Z\)/);

    // One warning for the late records, naming every series, not one per series.
    const warnings = (await page.evaluate(`[...document.querySelectorAll('.warn')].map((w) => w.textContent)`)) as string[];
    const late = warnings.filter((w) => w.includes('further apart'));
    expect(late).toHaveLength(1);
    expect(late[0]).toMatch(/in overall \(179 records, [\d.]+ min\), listFlows \(179 records, [\d.]+ min\) and run \(179 records, [\d.]+ min\)/);

    // The budget chart's y axis: labelled ticks, each level with what it labels.
    const axis = (await page.evaluate(`(() => {
      const mid = (r) => r.top + r.height / 2;
      const ticks = [...document.querySelectorAll('.budget-tick')].map((t) => ({ text: t.textContent, share: Number(t.dataset.share), y: mid(t.getBoundingClientRect()) }));
      const svg = document.querySelector('svg.budget').getBoundingClientRect();
      const limit = document.querySelector('svg.budget line.budget-limit').getBoundingClientRect();
      return { ticks, svgTop: svg.top, svgHeight: svg.height, limitY: limit.top };
    })()`)) as { ticks: { text: string; share: number; y: number }[]; svgTop: number; svgHeight: number; limitY: number };
    const texts = axis.ticks.map((t) => t.text);
    expect(texts).toContain('0 %');
    expect(texts).toContain('100 %');
    expect(axis.ticks.length).toBeGreaterThanOrEqual(3);
    const at = (share: number): number => axis.ticks.find((t) => t.share === share)!.y;
    expect(Math.abs(at(1) - axis.limitY)).toBeLessThan(2);
    // 0 % sits at the line's origin (y = 110 of the 120-unit viewBox).
    expect(Math.abs(at(0) - (axis.svgTop + (110 / 120) * axis.svgHeight))).toBeLessThan(2);
    // Higher shares higher on the page.
    const ys = [...axis.ticks].sort((a, b) => a.share - b.share).map((t) => t.y);
    expect(ys).toEqual([...ys].sort((a, b) => b - a));

    mkdirSync(resolve(SCREENSHOT_30D, '..'), { recursive: true });
    await page.screenshot({ path: SCREENSHOT_30D, fullPage: true });
    expect(existsSync(SCREENSHOT_30D)).toBe(true);
  });
});
