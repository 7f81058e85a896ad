/**
 * `flowgauge run --workers N`: the schedule split over worker threads against a reference
 * service in this process. Two workers send the same schedule as one process (counts exact,
 * rate on target), a stop drains every worker into one interrupted report, a worker that dies
 * is said in the report and the exit code, and bad values exit 2 with the allowed range.
 */
import { availableParallelism } from 'node:os';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { autoWorkersNote, parseWorkers } from '../../src/cli/workers-option.js';
import type { Report } from '../../src/report/index.js';
import { startReferenceService, type ReferenceService } from '../../src/target/index.js';
import { killIfRunning, spawnCli, until, type CliProcess } from '../reliability/cli-process.js';

const TOKEN = 'fg_workers_token_W';
const TIER = { limitPerMinute: 10_000_000 };
let dir: string;
let service: ReferenceService;
let cli: CliProcess | undefined;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fg-workers-'));
  service = await startReferenceService({ latency: 'none', tokens: { [TOKEN]: { account: 'acct_w', tier: TIER } } });
});
afterEach(async () => {
  await killIfRunning(cli);
  cli = undefined;
});
afterAll(async () => {
  await service.close();
  rmSync(dir, { recursive: true, force: true });
});

function scenario(name: string, load: Record<string, unknown>): string {
  const path = join(dir, `${name}.json`);
  writeFileSync(path, JSON.stringify({ name, tier: TIER, load: { executor: 'constant-arrival-rate', ...load }, mix: [{ op: 'listFlows' }], thresholds: {} }));
  return path;
}

async function run(args: readonly string[]): Promise<{ code: number; out: string; err: string; report: Report | undefined }> {
  const out = join(dir, `out-${Math.random().toString(36).slice(2)}`);
  const io = memoryIo({ cwd: dir });
  const code = await main(['run', ...args, '--base-url', service.baseUrl, '--token', TOKEN, '--quiet', '--no-audit', '--out', out], io);
  const path = join(out, 'report.json');
  return { code, out: io.out(), err: io.err(), report: existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as Report) : undefined };
}

describe('--workers', () => {
  it('2 workers send the schedule one process sends: the same starts and requests, the rate on target, one merged report', async () => {
    const file = scenario('split', { rate: '200/s', duration: '2s' });
    const one = await run([file]);
    const two = await run([file, '--workers', '2']);
    expect(one.code, one.err).toBe(0);
    expect(two.code, two.err).toBe(0);
    expect(two.out).toContain('split over 2 worker threads');
    const [a, b] = [one.report as Report, two.report as Report];
    // Shard i of 2 takes every second arrival: together exactly the one schedule.
    expect(b.load.started).toBe(400);
    expect(b.load.started).toBe(a.load.started);
    expect(b.ops.listFlows?.count).toBe(a.ops.listFlows?.count);
    expect(b.ops.listFlows?.good).toBe(400);
    // Starts over the schedule's window: on target but for the last timer's lateness on a busy
    // machine; a worker that sent nothing would show as 100/s.
    expect(b.load.achievedRatePerS).toBeGreaterThan(190);
    expect(b.load.achievedRatePerS).toBeLessThanOrEqual(201);
    // The merged latency histogram holds every request of both workers.
    expect(b.ops.listFlows?.latencyMs.count).toBe(400);
    expect(b.slo.availability).toBe(1);
    expect(b.interrupted).toBe(false);
    expect(b.load.workers).toBe(2);
    expect(a.load.workers).toBeUndefined();
  });

  it('a stop signal drains every worker into one report marked interrupted (exit 130)', async () => {
    const file = scenario('stop', { rate: '500/s', duration: '60s' });
    const out = join(dir, 'out-stop');
    cli = spawnCli(['run', file, '--workers', '2', '--base-url', service.baseUrl, '--token', TOKEN, '--out', out, '--quiet'], { cwd: dir });
    const proc = cli;
    // The service counts every test's requests: wait for 600 of this run's.
    const before = service.stats().requests;
    await until(() => service.stats().requests > before + 600 || proc.hasExited(), 'the run to pass 600 requests');
    expect(proc.hasExited(), proc.stderr()).toBe(false);
    proc.child.kill('SIGINT');
    const { code } = await proc.exited;
    expect(code, proc.stderr()).toBe(130);
    const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as Report;
    expect(report.interrupted).toBe(true);
    expect(report.load.started).toBeGreaterThan(500);
    expect(report.load.started).toBeLessThan(30_000);
    // Both workers' requests, every one accounted for.
    const counted = (report.ops.listFlows?.count ?? 0) + (report.load.cancelled ?? 0);
    expect(counted).toBe(report.load.started);
    expect(proc.stdout() + proc.stderr()).not.toContain(TOKEN);
  });

  it('a worker that dies is said in the report (WORKER_LOST, interrupted) and the exit code; the other still counts', async () => {
    const path = join(dir, 'dies.mjs');
    // The second worker's journey throws outside any promise: its thread dies. Its iterations
    // are the run's odd ones (shard 1 of 2): its 21st is the run's 41st.
    writeFileSync(
      path,
      `import { workerData } from 'node:worker_threads';
export default {
  name: 'dies', tier: { limitPerMinute: 10000000 },
  load: { executor: 'constant-arrival-rate', rate: '100/s', duration: '2s' },
  thresholds: {},
  journey: async (vu) => {
    if (workerData?.shard?.index === 1 && vu.iteration === 41) setTimeout(() => { throw new Error('worker boom'); }, 0);
    await vu.listFlows();
  },
};
`,
    );
    const r = await run([path, '--workers', '2']);
    expect(r.code, r.err).toBe(130);
    const report = r.report as Report;
    expect(report.interrupted).toBe(true);
    expect(report.passed).toBe(false);
    const lost = report.warnings?.find((w) => w.code === 'WORKER_LOST');
    expect(lost?.message).toMatch(/worker 2 of 2 .*worker boom/);
    // The first worker's half of the schedule is all there.
    expect(report.load.started).toBeGreaterThanOrEqual(100);
    expect(report.load.started).toBeLessThan(200);
    expect(r.out).toMatch(/WORKER_LOST/);
  });

  it.each([['0'], ['-1'], ['two'], ['1.5'], [String(availableParallelism() + 1)]])('--workers %s exits 2 naming the allowed range', async (value) => {
    const r = await run([scenario('bad-workers', { rate: '1/s', duration: '1s' }), '--workers', value]);
    expect(r.code).toBe(2);
    expect(r.err).toContain(`--workers "${value}" is not allowed: give a whole number from 1 to ${availableParallelism()}`);
    expect(r.report).toBeUndefined();
  });

  it('refuses flags that need the whole run in one thread', async () => {
    const r = await run([scenario('with-webhooks', { rate: '1/s', duration: '1s' }), '--workers', '2', '--webhook-listen', '127.0.0.1:0', '--webhook-secret', 's3cret-s3cret']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--workers 2 cannot be combined with --webhook-listen/);
    expect(r.report).toBeUndefined();
  });

  it('auto leaves one core to the main thread', () => {
    expect(parseWorkers('auto', 8)).toBe(7);
    expect(parseWorkers('auto', 1)).toBe(1);
    expect(parseWorkers(undefined, 8)).toBe(1);
    expect(parseWorkers('4', 8)).toBe(4);
  });

  it('auto says what it chose, above all when it chose 1', async () => {
    expect(autoWorkersNote('auto', 1, 2)).toBe('--workers auto: 1 worker (2 cores, one kept for the main thread and the target); the run is in one thread: give --workers 2 to split it anyway, or run shards on more machines');
    expect(autoWorkersNote('auto', 7, 8)).toBe('--workers auto: 7 workers (8 cores, one kept for the main thread and the target)');
    expect(autoWorkersNote('2', 2, 8)).toBeUndefined();
    const r = await run([scenario('auto', { rate: '2/s', duration: '1s' }), '--workers', 'auto']);
    expect(r.code, r.err).toBe(0);
    expect(r.err).toContain(`flowgauge: ${autoWorkersNote('auto', parseWorkers('auto'))}`);
  });
});

describe('--workers: one run, whatever the threads', () => {
  it('an abort-on-fail threshold one worker sees fail stops every worker at once: one abortedBy, far before the schedule ends', async () => {
    const path = join(dir, 'abort-one.mjs');
    // Only the second worker's iterations fail; each worker times its requests as its own step.
    writeFileSync(
      path,
      `import { workerData } from 'node:worker_threads';
export default {
  name: 'abort-one', tier: { limitPerMinute: 10000000 },
  load: { executor: 'constant-arrival-rate', rate: '20/s', duration: '20s' },
  thresholds: { 'iterations.failed': { expr: '==0', abortOnFail: true } },
  journey: async (vu) => {
    const w = workerData?.shard?.index ?? 0;
    await vu.step('worker' + w, () => vu.listFlows());
    if (w === 1) vu.fail('the second worker fails every iteration');
  },
};
`,
    );
    const r = await run([path, '--workers', '2']);
    expect(r.code, r.err).toBe(1);
    const report = r.report as Report;
    expect(report.abortedBy).toBe('iterations.failed');
    expect(report.verdict).toBe('ABORTED');
    expect(report.interrupted).toBe(false);
    expect(report.load.workers).toBe(2);
    // Each worker sends 10/s for 20 s if nothing stops it (200): both stopped within the first seconds.
    const first = report.steps?.worker0?.count ?? 0;
    const second = report.steps?.worker1?.count ?? 0;
    expect(second).toBeGreaterThan(0);
    expect(first).toBeGreaterThan(0);
    expect(first).toBeLessThan(80);
    expect(second).toBeLessThan(80);
    // The merged run spans the first start to the last end: far less than the 20 s schedule.
    expect(report.durationS).toBeLessThan(8);
    expect(r.out.match(/aborted/gi)?.length ?? 0).toBeGreaterThan(0);
  }, 60_000);

  it("says each warning once, not once per worker, and records the workers' count", async () => {
    const path = join(dir, 'drops.mjs');
    // One at a time and slower than the schedule, each worker at its own pace: both drop starts, by different counts.
    writeFileSync(
      path,
      `import { workerData } from 'node:worker_threads';
export default {
  name: 'drops', tier: { limitPerMinute: 10000000 },
  load: { executor: 'constant-arrival-rate', rate: '20/s', duration: '2s', maxInFlight: 1 },
  thresholds: {},
  journey: async (vu) => {
    await vu.listFlows();
    await vu.sleep((workerData?.shard?.index ?? 0) === 0 ? 300 : 650);
  },
};
`,
    );
    const r = await run([path, '--workers', '2']);
    expect(r.code, r.err).toBe(0);
    const report = r.report as Report;
    expect(report.load.workers).toBe(2);
    expect(report.load.dropped).toBeGreaterThan(10);
    const codes = (report.warnings ?? []).map((w) => w.code);
    expect(codes.filter((c) => c === 'DROPPED')).toHaveLength(1);
    expect(new Set(codes).size).toBe(codes.length);
    expect(report.warnings?.find((w) => w.code === 'DROPPED')?.message).toMatch(/\(figures of worker \d of 2; worker \d said the same of its share\)/);
    expect(r.out.match(/WARNING DROPPED/g)).toHaveLength(1);
  });
});
