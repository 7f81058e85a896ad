/**
 * One history, several targets: `slo status` gives one section per target (never one blended
 * uptime), decides by the worst, and reads records written before targets were kept as the sole
 * named target's. The timeline never paints time after the last record as up.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { buildSloStatus, createTargetedStatusFold, MAX_STATUS_TARGETS, readSloStatus, renderStatusHtml, renderStatusText, type ProbeRecord, type SloStatus } from '../../src/probe/index.js';
import { record, removeTempDirs, rounds, tempDir } from './helpers.js';

afterEach(() => removeTempDirs());

const NOW = Date.parse('2026-11-22T12:00:00Z');
const HOUR = 3_600_000;
const named = (recs: readonly ProbeRecord[], target: string): ProbeRecord[] => recs.map((r) => ({ ...r, target, instance: target }));

/** Two probers of one hour: staging down for the last 6 minutes, production up throughout. */
function twoTargets(): ProbeRecord[] {
  const staging = named(rounds(NOW - HOUR, 60, ['listFlows', 'run'], (i) => i >= 54), 'staging');
  const production = named(rounds(NOW - HOUR, 60, ['listFlows', 'run']), 'production');
  return [...staging, ...production].sort((a, b) => Date.parse(a.time) - Date.parse(b.time));
}

function foldOf(recs: readonly ProbeRecord[], unnamedAs?: string): SloStatus {
  const fold = createTargetedStatusFold({ nowMs: NOW, windowMs: HOUR }, unnamedAs);
  for (const r of recs) fold.add(r);
  return fold.finish();
}

describe('slo status of a history with two targets', () => {
  it('gives each target its own uptime, never a blend, and the worst decides', () => {
    const s = foldOf(twoTargets());
    expect(s.targets?.map((t) => t.target)).toEqual(['staging', 'production']);
    const [staging, production] = s.targets as SloStatus[];
    // Each exactly what its own records alone give.
    const alone = (name: string) => buildSloStatus(twoTargets().filter((r) => r.target === name), { nowMs: NOW, windowMs: HOUR });
    expect(staging?.overall).toEqual(alone('staging').overall);
    expect(production?.overall).toEqual(alone('production').overall);
    expect(staging?.overall.timeUptime).toBeCloseTo(54 / 60, 9);
    expect(production?.overall.timeUptime).toBe(1);
    // The top-level figures are the worst target's, and the verdict is every target's.
    expect(s.target).toBe('staging');
    expect(s.overall).toEqual(staging?.overall);
    expect(s.withinObjective).toBe(false);
    const text = renderStatusText(s);
    expect(text).toMatch(/^SLO status of 2 targets: staging, production/);
    expect(text).toContain('=== target staging ===');
    expect(text).toContain('=== target production ===');
    expect(text).toContain('OBJECTIVE MISSED on staging');
    const html = renderStatusHtml(s);
    expect(html.match(/<h2 id="target-[a-z]+">Target /g)).toHaveLength(2);
    expect(html.match(/class="tl-row" data-series="overall"/g)).toHaveLength(2);
  });

  it('one target: its status as before, naming it; no sections', () => {
    const s = foldOf(named(rounds(NOW - HOUR, 60, ['run']), 'api.example.com'));
    expect(s.target).toBe('api.example.com');
    expect(s.targets).toBeUndefined();
    expect(renderStatusText(s)).toMatch(/\ntarget: api\.example\.com\n/);
  });

  it('reads records that name no target as the sole named target’s (a history written across the upgrade)', async () => {
    const dir = tempDir();
    const old = rounds(NOW - HOUR, 30, ['run'], (i) => i < 3);
    const later = named(rounds(NOW - HOUR / 2, 30, ['run']), 'api.example.com');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'probe-2026-11-22.jsonl'), [...old, ...later].map((r) => `${JSON.stringify(r)}\n`).join(''));
    const { status } = await readSloStatus(dir, {}, { nowMs: NOW, windowMs: HOUR });
    expect(status.targets).toBeUndefined();
    expect(status.target).toBe('api.example.com');
    expect(status.overall.probes).toBe(60);
    expect(status.overall.downMinutes).toBeCloseTo(3, 9);
    // With two named targets, the unnamed records are a section of their own.
    writeFileSync(join(dir, 'probe-2026-11-22.jsonl'), named(rounds(NOW - HOUR / 2, 30, ['run']), 'other').map((r) => `${JSON.stringify(r)}\n`).join(''), { flag: 'a' });
    const three = (await readSloStatus(dir, {}, { nowMs: NOW, windowMs: HOUR })).status;
    expect(three.targets?.map((t) => t.target ?? '')).toEqual(['', 'api.example.com', 'other']);
    expect(renderStatusText(three)).toContain('=== target (records naming no target) ===');
  });

  it(`lists at most ${MAX_STATUS_TARGETS} targets, counting the records of the others`, () => {
    const recs = Array.from({ length: MAX_STATUS_TARGETS + 5 }, (_, i) => named([record({ timeMs: NOW - 60_000, check: 'run' })], `t${i}`)).flat();
    const s = foldOf(recs);
    expect(s.targets).toHaveLength(MAX_STATUS_TARGETS);
    expect(s.warnings.some((w) => w.includes('5 records of the others are left out'))).toBe(true);
  });

  it('slo status through the CLI: exit 1 while one target misses, --json with a section per target', async () => {
    const cwd = tempDir();
    mkdirSync(join(cwd, 'h'));
    writeFileSync(join(cwd, 'h', 'probe-2026-11-22.jsonl'), twoTargets().map((r) => `${JSON.stringify(r)}\n`).join(''));
    const io = memoryIo({ cwd });
    const code = await main(['slo', 'status', '--history', 'h', '--at', new Date(NOW).toISOString(), '--window', '1h', '--json'], io);
    expect(code, io.err()).toBe(1);
    const json = JSON.parse(io.out()) as SloStatus;
    expect(json.targets?.map((t) => [t.target, t.withinObjective])).toEqual([
      ['staging', false],
      ['production', true],
    ]);
  });
});

describe('the status timeline', () => {
  it('never paints time after the last record as up: one 1-minute probe in a 15-minute cell is drawn in proportion', () => {
    const s = buildSloStatus([record({ timeMs: NOW - 10 * 60_000, check: 'run' })], { nowMs: NOW, windowMs: 30 * 24 * HOUR });
    const html = renderStatusHtml(s);
    const cells = [...html.matchAll(/<span class="cell up"([^>]*)>/g)].map((m) => m[1] as string);
    expect(cells.length).toBeGreaterThan(0);
    for (const attrs of cells) {
      const observed = Number(/data-observed="([\d.]+)"/.exec(attrs)?.[1]);
      // A minute of a 15-minute cell.
      expect(observed).toBeCloseTo(1 / 15, 3);
      expect(attrs).toContain('#dadce0 6.67% 100%');
      expect(attrs).toMatch(/title="[^"]*1\.00 min up, 0\.00 min down, 14\.00 min not observed/);
    }
    // A fully observed cell has no such drawing.
    const full = renderStatusHtml(buildSloStatus(rounds(NOW - HOUR, 60, ['run']), { nowMs: NOW, windowMs: HOUR }));
    expect(full).not.toContain('data-observed');
  });

  it('names the first record, not the first cell, where the records start', () => {
    const first = NOW - 3 * HOUR + 7 * 60_000;
    const s = buildSloStatus(rounds(first, 170, ['run']), { nowMs: NOW, windowMs: 30 * 24 * HOUR });
    expect(s.timeline.firstRecordMs).toBe(first);
    expect(s.timeline.startMs).toBeLessThan(first);
    expect(renderStatusHtml(s)).toContain(`No records before ${new Date(first).toISOString()}, the first in the window: the timeline starts at ${new Date(s.timeline.startMs).toISOString()}`);
  });
});
