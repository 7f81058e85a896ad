/**
 * The shell wrappers of deploy/kubernetes/job.yaml (a shard's pod) and merge-job.yaml (the merge
 * pod), run as the pods run them: the script taken from the manifest, run by `sh -c` with the
 * environment the Job gives, /reports mapped onto a temporary directory and /app onto one whose
 * bin/flowgauge.mjs is a stub that exits as told (and writes a report, or not). What is held: a
 * shard's pod succeeds only when the shard wrote its report and exited 0 or 1 (a failed
 * threshold is the merge's to judge); every other exit, and an exit 0 or 1 without a report
 * (node itself exits 1 when it cannot start flowgauge), fails the pod with the code passed
 * through; the merge pod fails on anything but 0 and when no shard wrote a report. The real merge
 * through this very wrapper, with a shard missing: test/e2e/shard-rehearsal.test.ts.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { envValue, podScript } from './helpers/pod-script.js';

interface Pod {
  readonly code: number | null;
  readonly stderr: string;
}

function runPod(script: string, env: Record<string, string>): Promise<Pod> {
  return new Promise((done) => {
    execFile('sh', ['-c', script], { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env }, timeout: 20_000 }, (err, _stdout, stderr) => {
      const e = err as (Error & { code?: number | string }) | null;
      done({ code: e === null ? 0 : typeof e.code === 'number' ? e.code : null, stderr });
    });
  });
}

/**
 * A stand-in for bin/flowgauge.mjs: records its arguments, writes `--out`'s report.json when
 * STUB_REPORT=1 (run), and exits with STUB_CODE, or is killed by STUB_SIGNAL.
 */
const STUB = `import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
const args = process.argv.slice(2);
appendFileSync(process.env.STUB_LOG, JSON.stringify(args) + '\\n');
const out = args.indexOf('--out');
if (process.env.STUB_REPORT === '1' && out >= 0) {
  mkdirSync(args[out + 1], { recursive: true });
  writeFileSync(args[out + 1] + '/report.json', '{"schema":"flowgauge/report@1"}\\n');
}
if (process.env.STUB_SIGNAL) process.kill(process.pid, process.env.STUB_SIGNAL);
process.exit(Number(process.env.STUB_CODE ?? '0'));
`;

let dir: string;
let app: string;
let noApp: string;
let n = 0;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'fg-job-wrappers-'));
  app = join(dir, 'app');
  mkdirSync(join(app, 'bin'), { recursive: true });
  writeFileSync(join(app, 'bin', 'flowgauge.mjs'), STUB);
  // An image whose entry point is not there: node itself exits 1 before flowgauge runs.
  noApp = join(dir, 'no-app');
  mkdirSync(noApp);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A fresh volume and log for one pod. */
function fresh(): { reports: string; log: string; calls: () => string[][] } {
  const reports = join(dir, `reports-${++n}`);
  mkdirSync(reports);
  const log = join(dir, `calls-${n}.jsonl`);
  return { reports, log, calls: () => (existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as string[]) : []) };
}

describe('deploy/kubernetes/job.yaml: a shard\'s pod', () => {
  const RUN_ID = envValue('job.yaml', 'RUN_ID') as string;

  async function shardPod(o: { code?: number; report: boolean; signal?: string; app?: string; stale?: boolean }): Promise<Pod & { calls: string[][]; report: string }> {
    const v = fresh();
    const report = join(v.reports, RUN_ID, 'shard-2', 'report.json');
    if (o.stale === true) {
      mkdirSync(join(v.reports, RUN_ID, 'shard-2'), { recursive: true });
      writeFileSync(report, '{"from":"an earlier run"}\n');
    }
    const pod = await runPod(podScript('job.yaml', o.app ?? app, v.reports), {
      RUN_ID,
      JOB_COMPLETION_INDEX: '2',
      FLOWGAUGE_START_AT: '2026-05-01T12:00:00Z',
      STUB_LOG: v.log,
      STUB_CODE: String(o.code ?? 0),
      STUB_REPORT: o.report ? '1' : '0',
      ...(o.signal !== undefined ? { STUB_SIGNAL: o.signal } : {}),
    });
    return { ...pod, calls: v.calls(), report };
  }

  it('runs its shard with the index Kubernetes gives, writing where the merge Job reads', async () => {
    const pod = await shardPod({ code: 0, report: true });
    expect(pod.code, pod.stderr).toBe(0);
    const [args] = pod.calls;
    expect(args?.slice(0, 2)).toEqual(['run', 'mixed-pro']);
    expect(args).toContain('--shards');
    expect(args?.[(args?.indexOf('--out') ?? 0) + 1]).toBe(resolve(pod.report, '..'));
    expect(existsSync(pod.report)).toBe(true);
  });

  it('a threshold failed on this shard alone, its report written: the pod succeeds, and says the merge judges', async () => {
    const pod = await shardPod({ code: 1, report: true });
    expect(pod.code).toBe(0);
    expect(pod.stderr).toContain('a threshold failed on this shard alone; its report is written and the merge judges the run');
  });

  it('exit 1 without a report (node could not start flowgauge): the pod fails with 1', async () => {
    const crashed = await shardPod({ code: 1, report: false });
    expect(crashed.code).toBe(1);
    expect(crashed.stderr).toMatch(/run exited 1 without writing \S+\/shard-2\/report\.json: failing the pod/);
    // The real thing: an image whose bin/flowgauge.mjs is not there.
    const noEntry = await shardPod({ report: false, app: noApp });
    expect(noEntry.code).toBe(1);
    expect(noEntry.stderr).toMatch(/Cannot find module/);
    expect(noEntry.stderr).toContain('run exited 1 without writing');
  });

  it('an earlier run\'s report in the directory does not pass for this one\'s', async () => {
    const pod = await shardPod({ code: 1, report: false, stale: true });
    expect(pod.code).toBe(1);
    expect(existsSync(pod.report)).toBe(false);
  });

  it('exit 0 without a report fails the pod (70): a run that says it passed must leave its report', async () => {
    const pod = await shardPod({ code: 0, report: false });
    expect(pod.code).toBe(70);
  });

  for (const [code, report, what] of [
    [2, false, 'bad input'],
    [3, false, 'target unreachable'],
    [70, false, 'internal error'],
    [76, false, 'not the interface'],
    [130, true, 'interrupted, its report written'],
    [2, true, 'unique data ran out, its report written'],
  ] as const) {
    it(`exit ${code} (${what}): the pod fails with ${code}`, async () => {
      const pod = await shardPod({ code, report });
      expect(pod.code).toBe(code);
      expect(pod.stderr).toContain(report ? `run exited ${code} (its report is written, for the merge): failing the pod` : `run exited ${code} without writing`);
    });
  }

  it('killed (OOM: SIGKILL): the pod fails with 137', async () => {
    const pod = await shardPod({ report: false, signal: 'SIGKILL' });
    expect(pod.code).toBe(137);
  });
});

describe('deploy/kubernetes/merge-job.yaml: the merge pod', () => {
  const RUN_ID = envValue('merge-job.yaml', 'RUN_ID') as string;

  async function mergePod(o: { code: number; shards: number[] }): Promise<Pod & { calls: string[][]; reports: string }> {
    const v = fresh();
    for (const i of o.shards) {
      mkdirSync(join(v.reports, RUN_ID, `shard-${i}`), { recursive: true });
      writeFileSync(join(v.reports, RUN_ID, `shard-${i}`, 'report.json'), '{}\n');
    }
    const pod = await runPod(podScript('merge-job.yaml', app, v.reports), { RUN_ID, STUB_LOG: v.log, STUB_CODE: String(o.code) });
    return { ...pod, calls: v.calls(), reports: v.reports };
  }

  it('merges every shard\'s report into merged/report.json; 0 passes the pod', async () => {
    const pod = await mergePod({ code: 0, shards: [0, 1, 3] });
    expect(pod.code, pod.stderr).toBe(0);
    const shardFile = (i: number): string => join(pod.reports, RUN_ID, `shard-${i}`, 'report.json');
    expect(pod.calls).toEqual([['merge', shardFile(0), shardFile(1), shardFile(3), '-o', join(pod.reports, RUN_ID, 'merged', 'report.json')]]);
  });

  it('1 (a threshold failed on the whole, or a shard missing) fails the pod, saying which', async () => {
    const pod = await mergePod({ code: 1, shards: [0] });
    expect(pod.code).toBe(1);
    expect(pod.stderr).toContain('the run is no pass: a threshold failed on the merged figures, or a shard is missing');
  });

  it('2 (reports that do not belong together) fails the pod', async () => {
    const pod = await mergePod({ code: 2, shards: [0, 1] });
    expect(pod.code).toBe(2);
    expect(pod.stderr).toContain('nothing merged');
  });

  it('no shard wrote a report: 2, said, and merge is not run on a pattern that matched nothing', async () => {
    const pod = await mergePod({ code: 0, shards: [] });
    expect(pod.code).toBe(2);
    expect(pod.stderr).toContain(`no shard of run ${RUN_ID} wrote a report`);
    expect(pod.calls).toEqual([]);
  });
});
