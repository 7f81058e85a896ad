/**
 * `flowgauge run --start-at` (and FLOWGAUGE_START_AT): shards hold their clocks until one instant,
 * so they run side by side; one that comes up after it joins the schedule in phase; a time past
 * the scenario's whole duration or too far ahead is refused (exit 2), Ctrl-C while waiting ends
 * with 130 and no report. And `merge one.json` gives back the report it was given.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { parseStartAt, waitForStart } from '../../src/cli/start-at.js';
import { createFakeClock } from '../../src/core/clock.js';
import { mergeReports, type Report } from '../../src/report/index.js';
import { startReferenceService, type ReferenceService } from '../../src/target/index.js';
import { killIfRunning, scaledMs, spawnCli, until, type CliProcess } from '../reliability/cli-process.js';

const TOKEN = 'fg_start_at_token_S';
let dir: string;
let scenario: string;
let service: ReferenceService;
let child: CliProcess | undefined;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fg-start-at-'));
  service = await startReferenceService({ latency: 'none', tokens: { [TOKEN]: { account: 'acct_s', tier: 'pro' } } });
  scenario = join(dir, 'together.json');
  // No thresholds: judged on the defaults, which the report marks implicit.
  writeFileSync(scenario, JSON.stringify({ name: 'together', tier: 'pro', load: { executor: 'constant-arrival-rate', rate: '20/s', duration: '1s' }, mix: [{ op: 'listFlows' }] }));
});
afterEach(async () => {
  await killIfRunning(child);
  child = undefined;
});
afterAll(async () => {
  await service.close();
  rmSync(dir, { recursive: true, force: true });
});

async function run(args: readonly string[], env: Record<string, string> = {}): Promise<{ code: number; out: string; err: string; report: Report | undefined; dir: string }> {
  const out = join(dir, `out-${Math.random().toString(36).slice(2)}`);
  const io = memoryIo({ cwd: dir, env });
  const code = await main(['run', scenario, '--base-url', service.baseUrl, '--token', TOKEN, '--quiet', '--no-audit', '--out', out, ...args], io);
  const path = join(out, 'report.json');
  return { code, out: io.out(), err: io.err(), report: existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as Report) : undefined, dir: out };
}

describe('--start-at', () => {
  it('a time past the scenario\'s whole duration, too far ahead, or not a time with its zone is exit 2, naming the value and what is allowed', async () => {
    const past = new Date(Date.now() - 30_000).toISOString();
    const r = await run(['--start-at', past]);
    expect(r.code).toBe(2);
    expect(r.err).toContain(`flowgauge: --start-at "${past}" is 3`);
    expect(r.err).toMatch(/is 3\d s in the past \(now is \S+Z\), past the scenario's whole 1\.0 s: nothing would be left to send; /);
    expect(r.err).toMatch(/give an ISO 8601 time with its zone, up to 24 h ahead \(one already past, by less than the scenario's 1\.0 s, joins the run in phase\), e\.g\. \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ/);
    expect(r.report).toBeUndefined();
    expect(existsSync(r.dir)).toBe(false);

    const env = await run([], { FLOWGAUGE_START_AT: '2020-01-01T00:00:00Z' });
    expect(env.code).toBe(2);
    expect(env.err).toMatch(/FLOWGAUGE_START_AT="2020-01-01T00:00:00Z" is \d+ h \d+ min in the past/);
    const ahead = new Date(Date.now() + 25 * 3600_000).toISOString();
    expect((await run(['--start-at', ahead])).err).toMatch(/is 25 h 0 min ahead, more than 24 h/);
    expect((await run(['--start-at', '2030-01-01T12:00:00'])).err).toContain('--start-at "2030-01-01T12:00:00" is not a time; give an ISO 8601 time with its zone');
    expect((await run(['--start-at', 'in 2 minutes'])).code).toBe(2);
  });

  it('the flag wins over FLOWGAUGE_START_AT; up to a second past starts at once, said on stderr', async () => {
    const three = join(dir, 'three.json');
    writeFileSync(three, JSON.stringify({ name: 'three', tier: 'pro', load: { executor: 'constant-arrival-rate', rate: '20/s', duration: '3s' }, mix: [{ op: 'listFlows' }] }));
    const at = new Date(Date.now() - 400);
    const out = join(dir, 'past');
    const io = memoryIo({ cwd: dir, env: { FLOWGAUGE_START_AT: '2020-01-01T00:00:00Z' } });
    const code = await main(['run', three, '--base-url', service.baseUrl, '--token', TOKEN, '--quiet', '--no-audit', '--out', out, '--start-at', at.toISOString()], io);
    expect(code, io.err()).toBe(0);
    const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as Report;
    // How late it really started decides which rule applies (a busy machine may take over a second to get there).
    const lateMs = Date.parse(report.startedAt) - at.getTime();
    if (lateMs <= 1000) {
      expect(io.err()).toMatch(/^flowgauge: started 0\.\d s after --start-at "/m);
      expect(report.load.started).toBe(60);
      expect(report.load.missed).toBeUndefined();
    } else {
      expect(report.load.started + (report.load.missed ?? 0)).toBe(60);
      expect(report.load.joinedAtS).toBeGreaterThan(1);
    }
    expect(parseStartAt(undefined, '', 0, 1000)).toBeUndefined();
    expect(parseStartAt(undefined, '1970-01-01T00:00:05+00:00', 0, 1000)).toEqual({ atMs: 5000, given: 'FLOWGAUGE_START_AT="1970-01-01T00:00:05+00:00"' });
    // Past by less than the scenario's whole schedule: allowed (the run joins it in phase); by all of it, refused.
    expect(parseStartAt(undefined, '1970-01-01T00:00:05Z', 64_999, 60_000)?.atMs).toBe(5000);
    expect(() => parseStartAt(undefined, '1970-01-01T00:00:05Z', 65_000, 60_000)).toThrow(/past the scenario's whole 1 min 0 s/);
  });

  it('a time already past joins the schedule in phase: every arrival is sent or counted as missed, and the report and stderr say how late', async () => {
    const longer = join(dir, 'longer.json');
    writeFileSync(longer, JSON.stringify({ name: 'longer', tier: 'pro', load: { executor: 'constant-arrival-rate', rate: '20/s', duration: '6s' }, mix: [{ op: 'listFlows' }] }));
    const out = join(dir, 'late');
    const at = new Date(Date.now() - 2000).toISOString();
    const io = memoryIo({ cwd: dir });
    const code = await main(['run', longer, '--base-url', service.baseUrl, '--token', TOKEN, '--quiet', '--no-audit', '--out', out, '--start-at', at, '--shard', '1/1'], io);
    expect(code, io.err()).toBe(0);
    const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as Report;
    // In phase: the 120 arrivals of the schedule are each sent or missed, none twice, none shifted out.
    expect(report.load.started + (report.load.missed ?? 0)).toBe(120);
    expect(report.load.missed).toBeGreaterThanOrEqual(40);
    expect(report.load.joinedAtS).toBeGreaterThanOrEqual(2);
    expect(report.warnings?.find((w) => w.code === 'JOINED_LATE')?.message).toMatch(/^came up \d+\.\d s after --start-at and joined its schedule in phase: the \d+ arrivals due before then were not sent/);
    expect(io.err()).toMatch(/started \d+(\.\d)? s after --start-at "[^"]+": it joins the schedule \d+(\.\d)? s in, in phase with the shards that started on time/);
    expect(report.shard).toMatchObject({ index: 1, count: 1, runId: `longer@${at.replace('.000Z', 'Z')}` });
  });

  // Needs a quiet core: "within 50 ms" and the achieved rate are wall-clock figures of two shards
  // sharing this process's event loop, which a starved machine can delay. Retried once; the
  // product's own judgement (no SHARDS_NOT_TOGETHER: starts within a second) is checked too.
  it('two shards given the same --start-at start within 50 ms of each other, at that instant, and merge without a warning', { retry: 1 }, async () => {
    // Both in this process, so the test measures the wait, not how two processes share two busy cores.
    // Far enough ahead that both are waiting before it comes, however slowly this machine prepares a run.
    const at = new Date(Math.ceil(Date.now() / 1000) * 1000 + scaledMs(3000));
    const [one, two] = await Promise.all([run(['--shard', '1/2', '--start-at', at.toISOString()]), run(['--shard', '2/2', '--start-at', at.toISOString()])]);
    for (const r of [one, two]) {
      expect(r.code, r.err).toBe(0);
      expect(r.out).toMatch(/^flowgauge: shard [12]\/2 {2}waiting until \S+ to start \(--start-at "\S+"\), \d+\.\d s from now$/m);
      expect(r.err, 'neither was late').toBe('');
      expect(Date.parse(r.report?.startedAt ?? '')).toBeGreaterThanOrEqual(at.getTime());
    }
    const [a, b] = [one.report as Report, two.report as Report];
    expect(Math.abs(Date.parse(a.startedAt) - Date.parse(b.startedAt))).toBeLessThan(50);
    const merged = mergeReports([a, b]);
    expect(merged.warnings?.some((w) => w.code === 'SHARDS_NOT_TOGETHER') ?? false).toBe(false);
    expect(merged.load.started).toBe(20);
    expect(merged.load.achievedRatePerS).toBeGreaterThan(18);
  });

  it('Ctrl-C while waiting exits 130 without a run or a report', async () => {
    const out = join(dir, 'interrupted');
    const at = new Date(Date.now() + 120_000).toISOString();
    child = spawnCli(['run', scenario, '--base-url', service.baseUrl, '--start-at', at, '--out', out, '--no-audit'], { cwd: dir, env: { FLOWGAUGE_TOKEN: TOKEN } });
    const proc = child;
    await until(() => proc.stdout().includes('waiting until') || proc.hasExited(), 'the run to wait for its start');
    expect(proc.hasExited(), proc.stderr()).toBe(false);
    const before = service.stats().requests;
    proc.child.kill('SIGINT');
    const { code } = await proc.exited;
    expect(code, proc.stderr()).toBe(130);
    expect(proc.stderr()).toContain(`interrupted while waiting for --start-at "${at}": nothing ran, no report written`);
    expect(existsSync(join(out, 'report.json'))).toBe(false);
    expect(service.stats().requests).toBe(before);
  });

  it('waits on its clock to the instant, says how late it was, and obeys a stop', async () => {
    const clock = createFakeClock({ wallStartMs: 1_000_000 });
    const left: number[] = [];
    let done: { lateMs: number } | undefined;
    void waitForStart(1_002_500, clock, undefined, 'x', { onWaiting: (ms) => left.push(ms) }).then((r) => (done = r));
    clock.advance(2_499e6);
    await Promise.resolve();
    expect(done).toBeUndefined();
    clock.advance(1e6);
    await Promise.resolve();
    expect(done).toEqual({ lateMs: 0 });
    expect(left).toEqual([2500, 2000, 1000]);
    await expect(waitForStart(1_002_000, clock, undefined, 'x')).resolves.toEqual({ lateMs: 500 });
    const stop = new AbortController();
    const waiting = waitForStart(2_000_000, clock, stop.signal, '--start-at "x"');
    stop.abort();
    await expect(waiting).rejects.toMatchObject({ code: 'FG_INTERRUPTED', message: 'interrupted while waiting for --start-at "x": nothing ran, no report written' });
  });
});

describe('merge of one report', () => {
  it('`flowgauge merge one.json` gives back the report it was given, durationS and implicit thresholds included', async () => {
    const r = await run([]);
    expect(r.code, r.err).toBe(0);
    const report = r.report as Report;
    expect(report.thresholds.length).toBeGreaterThan(0);
    expect(report.thresholds.every((t) => t.implicit === true)).toBe(true);
    const out = join(dir, 'merged-one', 'merged.json');
    const io = memoryIo({ cwd: dir });
    expect(await main(['merge', join(r.dir, 'report.json'), '-o', out], io), io.err()).toBe(0);
    expect(JSON.parse(readFileSync(out, 'utf8'))).toStrictEqual(report);
  });
});
