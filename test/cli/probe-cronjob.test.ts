/**
 * `probe --once` as a CronJob runs it: one round a minute, each a new process, through `main`.
 * The wall clock is moved a minute per tick by shifting `performance.now` (the system clock's
 * source), so durations and timers stay consistent while the records land a minute apart.
 * A 5-minute outage must count as 5 minutes (± one interval), not as five default 30 s spans.
 */
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { readHistory } from '../../src/probe/index.js';
import { startReferenceService, type ReferenceService } from '../../src/target/index.js';
import { removeTempDirs, tempDir } from '../probe/helpers.js';

let service: ReferenceService;
beforeAll(async () => {
  service = await startReferenceService({ latency: 'none' });
});
afterAll(async () => {
  await service.close();
});
afterEach(() => {
  vi.restoreAllMocks();
  removeTempDirs();
});

async function cli(argv: string[], cwd: string): Promise<{ code: number; out: string; err: string }> {
  const io = memoryIo({ cwd });
  const code = await main(argv, io);
  return { code, out: io.out(), err: io.err() };
}

/** Runs `ticks` CronJob ticks a minute apart; ticks in `down` probe a closed port. Returns the time after the last tick. */
async function cronJob(cwd: string, ticks: number, down: (i: number) => boolean, intervalFlag: string[]): Promise<number> {
  const realNow = performance.now.bind(performance);
  let offsetMs = 0;
  vi.spyOn(performance, 'now').mockImplementation(() => realNow() + offsetMs);
  const start = performance.timeOrigin + performance.now();
  const deadUrl = service.baseUrl.replace(/:\d+\//, ':1/');
  for (let i = 0; i < ticks; i++) {
    // Each tick starts a minute after the first, whatever the previous one took.
    offsetMs += start + i * 60_000 - (performance.timeOrigin + performance.now());
    const url = down(i) ? deadUrl : service.baseUrl;
    // One target, up or down: named, since the dead port would otherwise be a target of its own.
    const r = await cli(['probe', '--once', '--history', 'h', '--checks', 'listFlows', '--target-name', 'api', '--base-url', url, '--token', service.tokens.pro, '--quiet', ...intervalFlag], cwd);
    expect(r.code, r.err).toBe(down(i) ? 1 : 0);
  }
  return start + ticks * 60_000;
}

async function statusAt(cwd: string, atMs: number): Promise<{ downMinutes: number; observedMinutes: number; lateGaps: number }> {
  const r = await cli(['slo', 'status', '--history', 'h', '--at', new Date(atMs).toISOString(), '--window', '1h', '--json'], cwd);
  return (JSON.parse(r.out) as { overall: { downMinutes: number; observedMinutes: number; lateGaps: number } }).overall;
}

describe('probe --once on a one-minute schedule', () => {
  const outage = (i: number): boolean => i >= 3 && i < 8;

  it('with --interval 1m counts a 5-minute outage as 5 minutes', async () => {
    const cwd = tempDir();
    const end = await cronJob(cwd, 12, outage, ['--interval', '1m']);
    const { records } = await readHistory(join(cwd, 'h'));
    expect(records.map((r) => r.success)).toEqual([...Array(12).keys()].map((i) => !outage(i)));
    expect(records.every((r) => r.intervalMs === 60_000)).toBe(true);
    const s = await statusAt(cwd, end);
    expect(Math.abs(s.downMinutes - 5)).toBeLessThanOrEqual(1);
    expect(s.lateGaps).toBe(0);
  });

  it('without --interval takes the span from the previous record, so the outage still counts whole', async () => {
    const cwd = tempDir();
    const end = await cronJob(cwd, 12, outage, []);
    const { records } = await readHistory(join(cwd, 'h'));
    // The first has nothing to go by (30 s, said aloud); the rest stand for the minute since the one before.
    expect(records[0]?.intervalMs).toBe(30_000);
    for (const r of records.slice(1)) expect(Math.abs(r.intervalMs - 60_000)).toBeLessThan(2000);
    const s = await statusAt(cwd, end);
    expect(Math.abs(s.downMinutes - 5)).toBeLessThanOrEqual(1);
  });

  it('a too-short --interval undercounts, and slo status says the records arrived late', async () => {
    const cwd = tempDir();
    const end = await cronJob(cwd, 12, outage, ['--interval', '30s']);
    const s = await statusAt(cwd, end);
    expect(s.downMinutes).toBeCloseTo(2.5, 1);
    expect(s.lateGaps).toBe(11);
    const text = await cli(['slo', 'status', '--history', 'h', '--at', new Date(end).toISOString(), '--window', '1h'], cwd);
    expect(text.out).toMatch(/WARNING: records arrived further apart than they claim to stand for in overall \(11 records, [\d.]+ min\) and listFlows \(11 records, [\d.]+ min\)/);
  });
});
