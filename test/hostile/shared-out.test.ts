/**
 * Two commands cannot share one `--out`: the second is refused at its start (exit 2, naming the
 * first's pid), before it sends anything, and the first's report is left whole (before: both
 * exited 0 and printed the path; one report silently replaced the other, a mixed json/html set
 * possible). A lock left by a process that is gone (SIGKILL, the OOM killer) is taken over.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { LOCK_FILE } from '../../src/cli/out-lock.js';
import type { Report } from '../../src/report/index.js';
import { startReferenceService, type ReferenceService } from '../../src/target/index.js';
import { killIfRunning, scaledMs, spawnCli, until, type CliProcess } from '../reliability/cli-process.js';

const TOKEN = 'fg_shared_out_t0ken';
let dir: string;
let service: ReferenceService;
let first: CliProcess | undefined;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fg-shared-out-'));
  service = await startReferenceService({ latency: 'none', tokens: { [TOKEN]: { account: 'acct_b', tier: { limitPerMinute: 10_000_000 } } } });
  const scenario = (name: string, duration: string): string =>
    JSON.stringify({ name, tier: { limitPerMinute: 10_000_000 }, load: { executor: 'constant-arrival-rate', rate: '20/s', duration }, mix: [{ op: 'listFlows' }], thresholds: {} });
  // Long enough for the refused commands below to reach their lock check while it runs: 4 s
  // on a quiet machine, stretched on one that starts slowly.
  writeFileSync(join(dir, 'long.json'), scenario('long', `${Math.ceil(scaledMs(4000) / 1000)}s`));
  writeFileSync(join(dir, 'short.json'), scenario('short', '1s'));
  // Once in this process first, so the commands refused below are not slowed by loading the CLI.
  await cli(['run', 'short.json', '--out', join(dir, 'warm-up'), '--quiet', '--no-audit']);
});
afterAll(async () => {
  await killIfRunning(first);
  await service.close();
  rmSync(dir, { recursive: true, force: true });
});

async function cli(argv: readonly string[]): Promise<{ code: number; err: string; out: string }> {
  const io = memoryIo({ cwd: dir });
  const code = await main([...argv, '--base-url', service.baseUrl, '--token', TOKEN], io);
  return { code, err: io.err(), out: io.out() };
}

describe('one --out, two commands', () => {
  it('a second run on the --out of a running one is refused at its start, and the first report is whole', async () => {
    const out = join(dir, 'shared');
    first = spawnCli(['run', 'long.json', '--out', out, '--quiet', '--no-audit', '--base-url', service.baseUrl, '--token', TOKEN], { cwd: dir });
    const running = first;
    await until(() => existsSync(join(out, LOCK_FILE)) || running.hasExited(), 'the first run to take its --out', 90_000);
    expect(running.hasExited(), running.stderr()).toBe(false);

    const second = await cli(['run', 'short.json', '--out', out, '--quiet']);
    expect(second.code, second.err).toBe(2);
    expect(second.err).toMatch(new RegExp(`--out \\S+/shared is in use by another flowgauge run \\(pid ${running.child.pid}\\)`));
    expect(second.out).not.toMatch(/flowgauge short:/);
    // capacity and conformance take the same lock.
    const capacity = await cli(['capacity', 'listFlows', '--out', out, '--step', '1s']);
    expect(capacity.code, capacity.err).toBe(2);
    expect(capacity.err).toMatch(/is in use by another flowgauge run/);

    const { code } = await running.exited;
    expect(code, running.stderr()).toBe(0);
    const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as Report;
    expect(report.scenario).toBe('long');
    expect(readFileSync(join(out, 'report.md'), 'utf8')).toContain('long');
    expect(existsSync(join(out, LOCK_FILE)), 'the lock outlived its run').toBe(false);

    // Once the first is over, the --out is free again.
    const again = await cli(['run', 'short.json', '--out', out, '--quiet', '--no-audit']);
    expect(again.code, again.err).toBe(0);
    expect((JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as Report).scenario).toBe('short');
  }, 150_000);

  it('a lock left by a process that is gone is taken over', async () => {
    const out = join(dir, 'stale');
    mkdirSync(out);
    // A real pid that is certainly gone: a child that has exited.
    const gone = spawn(process.execPath, ['-e', '']);
    const pid = await new Promise<number>((resolve) => gone.once('exit', () => resolve(gone.pid as number)));
    writeFileSync(join(out, LOCK_FILE), `${JSON.stringify({ pid, started: '1', command: 'run' })}\n`);
    const r = await cli(['run', 'short.json', '--out', out, '--quiet', '--no-audit']);
    expect(r.code, r.err).toBe(0);
    expect(existsSync(join(out, 'report.json'))).toBe(true);
    expect(existsSync(join(out, LOCK_FILE))).toBe(false);
  }, 90_000);

  it('a lock of a live process with another start time (its pid reused) is taken over; half a lock too', async () => {
    const out = join(dir, 'reused');
    mkdirSync(out);
    // This very process, but started at another time: the pid was reused.
    writeFileSync(join(out, LOCK_FILE), `${JSON.stringify({ pid: process.pid, started: '1', command: 'run' })}\n`);
    const r = await cli(['run', 'short.json', '--out', out, '--quiet', '--no-audit']);
    expect(r.code, r.err).toBe(0);
    writeFileSync(join(out, LOCK_FILE), '{"pid":');
    const torn = await cli(['run', 'short.json', '--out', out, '--quiet', '--no-audit']);
    expect(torn.code, torn.err).toBe(0);
  }, 90_000);
});
