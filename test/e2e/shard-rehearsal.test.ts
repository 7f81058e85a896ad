/**
 * A distributed run rehearsed as the cluster runs it (issue 38, item 5): three pods of
 * deploy/kubernetes/job.yaml, each its manifest's own script run by `sh` with the environment the
 * Indexed Job gives (JOB_COMPLETION_INDEX, one FLOWGAUGE_START_AT, RUN_ID; the image's /app is
 * this checkout, the reports volume a temporary directory), against one reference service and
 * one stand-in Pushgateway on 127.0.0.1. Shard 2's node is killed mid-run (as the OOM killer
 * would), shard 3's pod starts after the instant; then merge-job.yaml's script merges what is
 * there. The merge must name the missing shard and fail (exit 1, PARTIAL), and the late shard
 * must have joined in phase: each of its share's arrivals either sent or counted as missed,
 * never shifted, never sent in a burst.
 *
 * Nothing here is a timing assertion. The instant is set from a start-up measured on this
 * machine (4 × a CLI's start-up + 2 s), the schedule is long enough for the late shard to find
 * most of it left, and every figure checked holds however late any shard came up: a shard that
 * comes up late anyway also joins in phase.
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Report } from '../../src/report/index.js';
import { startReferenceService, type ReferenceService } from '../../src/target/index.js';
import { envValue, podScript } from './helpers/pod-script.js';
import { CLI_BIN } from '../reliability/cli-process.js';

const ROOT = resolve(import.meta.dirname, '../..');
const TOKEN = 'fg_rehearsal_token';
const SHARDS = 3;
const RATE_PER_S = 30;
const RUN_ID = envValue('job.yaml', 'RUN_ID') as string;

interface Pod {
  readonly index: number;
  readonly pid: number;
  readonly exited: Promise<{ code: number | null; stderr: string }>;
}

/** Children of `pid`, from /proc (this test runs on Linux, as the pods do). */
function childrenOf(pid: number): number[] {
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .flatMap((d) => {
      try {
        // Field 4 of stat is the parent; the command (field 2) is in parentheses and may hold spaces.
        const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid ? [Number(d)] : [];
      } catch {
        return [];
      }
    });
}

/** How long this machine takes to start the CLI (tsx and all), in ms: the start-up the margin is made of. */
function measureStartUp(): Promise<number> {
  const t0 = performance.now();
  return new Promise((done, fail) =>
    execFile(process.execPath, [CLI_BIN, 'schema', 'scenario'], { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 }, (err) => (err ? fail(err) : done(performance.now() - t0))),
  );
}

const waitUntilWall = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, Math.max(0, ms - Date.now())));

let dir: string;
let reports: string;
let service: ReferenceService;
let pushgateway: Server;
let pushes = 0;
const plan = { startAt: '', durationS: 0, startUpMs: 0 };
const pods: { code: number | null; stderr: string }[] = [];
const started: Pod[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fg-rehearsal-'));
  reports = join(dir, 'reports');
  mkdirSync(reports);
  service = await startReferenceService({ latency: 'none', tokens: { [TOKEN]: { account: 'acct_r', tier: { limitPerMinute: 1_000_000 } } } });
  pushgateway = createServer((req, res) => {
    pushes++;
    req.resume();
    req.on('end', () => res.writeHead(200).end());
  });
  await new Promise<void>((r) => pushgateway.listen(0, '127.0.0.1', r));
  const pushUrl = `http://127.0.0.1:${(pushgateway.address() as { port: number }).port}`;

  plan.startUpMs = await measureStartUp();
  // The schedule outlasts the late pod's start (launched 2.5 s in) by several start-ups.
  plan.durationS = Math.ceil(Math.max(12, 6 + (8 * plan.startUpMs) / 1000));
  const scenario = join(dir, 'rehearsal.json');
  writeFileSync(
    scenario,
    JSON.stringify({
      name: 'rehearsal',
      tier: { limitPerMinute: 1_000_000 },
      load: { executor: 'constant-arrival-rate', rate: `${RATE_PER_S}/s`, duration: `${plan.durationS}s`, gracefulStop: '2s' },
      mix: [{ op: 'listFlows' }],
      thresholds: { availability: '>= 50%' },
    }),
  );
  const script = podScript('job.yaml', ROOT, reports)
    .replace('run mixed-pro --duration 10m', `run "${scenario}"`)
    .replace(/--shards \d+/, `--shards ${SHARDS}`)
    .replace('http://flowgauge-pushgateway:9091', pushUrl);
  expect(script).toContain(`--shards ${SHARDS}`);
  expect(script).toContain(scenario);

  const startAtMs = Date.now() + 2000 + 4 * plan.startUpMs;
  plan.startAt = new Date(startAtMs).toISOString();
  const launch = (index: number): Pod => {
    // The environment the Indexed Job gives its pod (job.yaml's env, the Secret's values).
    const child = spawn('sh', ['-c', script], {
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: dir,
        NO_COLOR: '1',
        RUN_ID,
        JOB_COMPLETION_INDEX: String(index),
        FLOWGAUGE_START_AT: plan.startAt,
        FLOWGAUGE_TOKEN: TOKEN,
        FLOWGAUGE_BASE_URL: service.baseUrl,
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
    const exited = new Promise<{ code: number | null; stderr: string }>((done) => child.once('exit', (code) => done({ code, stderr })));
    const pod = { index, pid: child.pid as number, exited };
    started.push(pod);
    return pod;
  };

  const first = launch(0);
  const second = launch(1);
  // Mid-run: the second shard's node dies as an OOM kill would, leaving no report (its pod's sh sees 137).
  await waitUntilWall(startAtMs + 2000);
  for (const pid of childrenOf(second.pid)) process.kill(pid, 'SIGKILL');
  // The third pod comes up after the instant: image pull, node pressure.
  await waitUntilWall(startAtMs + 2500);
  const third = launch(2);
  pods.push(...(await Promise.all([first, second, third].map((p) => p.exited))));
}, 240_000);

afterAll(async () => {
  for (const p of started) {
    for (const pid of childrenOf(p.pid)) process.kill(pid, 'SIGKILL');
    try {
      process.kill(p.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  await service?.close();
  if (pushgateway !== undefined) await new Promise((r) => pushgateway.close(r));
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

const shardReport = (index: number): Report => JSON.parse(readFileSync(join(reports, RUN_ID, `shard-${index}`, 'report.json'), 'utf8')) as Report;
/** Shard `index` (0-based) of SHARDS sends arrivals index, index + SHARDS, … of the whole schedule. */
const share = (index: number): number => Array.from({ length: RATE_PER_S * plan.durationS }, (_, i) => i).filter((i) => i % SHARDS === index).length;

function mergePod(): Promise<{ code: number | null; stderr: string }> {
  return new Promise((done) =>
    execFile('sh', ['-c', podScript('merge-job.yaml', ROOT, reports)], { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir, NO_COLOR: '1', RUN_ID }, timeout: 60_000 }, (err, _out, stderr) => {
      const e = err as (Error & { code?: number | string }) | null;
      done({ code: e === null ? 0 : typeof e.code === 'number' ? e.code : null, stderr });
    }),
  );
}

describe('a distributed run rehearsed: one shard killed, one late', () => {
  it('the pods: the shards that wrote their report succeed, the killed one fails with 137 and no report', () => {
    const [first, killed, late] = pods;
    expect(first?.code, first?.stderr).toBe(0);
    expect(late?.code, late?.stderr).toBe(0);
    expect(killed?.code, killed?.stderr).toBe(137);
    expect(killed?.stderr).toMatch(/flowgauge-shard: run exited 137 without writing \S+\/shard-1\/report\.json: failing the pod/);
    expect(existsSync(join(reports, RUN_ID, 'shard-1', 'report.json'))).toBe(false);
    expect(pushes, 'the shards pushed to the Pushgateway').toBeGreaterThan(0);
  });

  it('each shard says which shard of which run it is', () => {
    const runId = `rehearsal@${plan.startAt.replace('.000Z', 'Z')}`;
    expect(shardReport(0).shard).toMatchObject({ index: 1, count: SHARDS, runId });
    expect(shardReport(2).shard).toMatchObject({ index: 3, count: SHARDS, runId });
    expect(shardReport(2).shard?.fingerprint).toBe(shardReport(0).shard?.fingerprint);
  });

  it('the late shard joined in phase: every arrival of its share sent or counted missed, and it says how late', () => {
    const late = shardReport(2);
    expect(late.load.joinedAtS, 'it came up at least 2.5 s after the instant').toBeGreaterThan(2.5);
    expect(late.load.missed ?? 0).toBeGreaterThan(0);
    expect(late.load.started + (late.load.missed ?? 0)).toBe(share(2));
    expect(late.warnings?.find((w) => w.code === 'JOINED_LATE')?.message).toMatch(/^came up \d+\.\d s after --start-at and joined its schedule in phase/);
    expect(pods[2]?.stderr).toMatch(/shard 3\/3 {2}started \d+(\.\d)? s after FLOWGAUGE_START_AT="[^"]+": it joins the schedule \d+(\.\d)? s in, in phase/);
    // The shard on time sent its whole share (or, had it come up late too, joined in phase as well).
    const first = shardReport(0);
    expect(first.load.started + (first.load.missed ?? 0)).toBe(share(0));
  });

  it('the merge Job names the missing shard, fails (exit 1), and writes the report of the rest marked PARTIAL', async () => {
    const pod = await mergePod();
    expect(pod.code, pod.stderr).toBe(1);
    expect(pod.stderr).toContain('missing shard 2/3');
    expect(pod.stderr).toContain('flowgauge-merge: the run is no pass');
    const merged = JSON.parse(readFileSync(join(reports, RUN_ID, 'merged', 'report.json'), 'utf8')) as Report;
    expect(merged).toMatchObject({ verdict: 'PARTIAL', passed: false, shards: { count: SHARDS, present: [1, 3], missing: [2] } });
    expect(merged.load.started).toBe(shardReport(0).load.started + shardReport(2).load.started);
    const apart = merged.warnings?.find((w) => w.code === 'SHARDS_NOT_TOGETHER')?.message ?? '';
    expect(apart).toMatch(/from the first start: .*shard 3\/3 \+\d+\.\d s/);
    expect(apart).toMatch(/shard 3\/3 came up after --start-at and joined the schedule in phase, without the \d+ arrivals already due/);
    expect(merged.warnings?.find((w) => w.code === 'JOINED_LATE')?.message).toContain('shard 3/3');
  });

  it('--allow-partial: exit by the thresholds on what is there, the report still PARTIAL', async () => {
    const files = [0, 2].map((i) => join(reports, RUN_ID, `shard-${i}`, 'report.json'));
    const out = join(dir, 'allowed', 'merged.json');
    const r = await new Promise<{ code: number | null; stdout: string; stderr: string }>((done) =>
      execFile(process.execPath, [CLI_BIN, 'merge', ...files, '--allow-partial', '-o', out], { cwd: dir, env: { ...process.env, NO_COLOR: '1' } }, (err, stdout, stderr) => {
        const e = err as (Error & { code?: number | string }) | null;
        done({ code: e === null ? 0 : typeof e.code === 'number' ? e.code : null, stdout, stderr });
      }),
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^flowgauge rehearsal: PARTIAL in /m);
    expect(r.stderr).toContain('missing shard 2/3');
  });
});
