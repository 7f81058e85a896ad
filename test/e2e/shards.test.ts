/**
 * A distributed run end to end: one reference service, three `flowgauge run --shard i/3`
 * processes against it, then the merge. The merged report must account for the whole
 * schedule (rate × duration) and every request of every shard.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { mergeReports } from '../../src/report/merge.js';
import type { Report } from '../../src/report/model.js';
import { startReferenceService } from '../../src/target/index.js';
import type { ReferenceService } from '../../src/target/index.js';
import { CLI_BIN } from '../reliability/cli-process.js';

const ROOT = resolve(import.meta.dirname, '../..');
const BIN = CLI_BIN;
const SHARDS = 3;
const RATE_PER_S = 60;
const DURATION_S = 3;
const TOKEN = 'fg_e2e_enterprise';

interface Exit {
  readonly code: number | null;
  readonly stderr: string;
}

function runShard(i: number, scenario: string, baseUrl: string, out: string): Promise<Exit> {
  return new Promise((done, fail) => {
    const child = spawn(
      process.execPath,
      [BIN, 'run', scenario, '--base-url', baseUrl, '--shard', `${i}/${SHARDS}`, '--out', out, '--quiet'],
      // The token goes by environment (FLOWGAUGE_TOKEN, same as --token) so it is not in any process listing.
      { cwd: ROOT, env: { ...process.env, FLOWGAUGE_TOKEN: TOKEN }, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', fail);
    child.on('close', (code) => done({ code, stderr }));
  });
}

describe('sharded run and merge', () => {
  const dir = mkdtempSync(join(tmpdir(), 'fg-shards-'));
  let service: ReferenceService | undefined;
  let shardFiles: string[] = [];
  let exits: Exit[] = [];

  beforeAll(async () => {
    service = await startReferenceService({
      tokens: { [TOKEN]: { account: 'acct_b', tier: { limitPerMinute: 1_000_000 } } },
      latency: 'none',
    });
    const scenario = join(dir, 'list-shards.json');
    writeFileSync(
      scenario,
      JSON.stringify({
        name: 'list-shards',
        tier: { limitPerMinute: 1_000_000 },
        load: { executor: 'constant-arrival-rate', rate: `${RATE_PER_S}/s`, duration: `${DURATION_S}s`, gracefulStop: '5s' },
        mix: [{ op: 'listFlows', query: { limit: 20 } }],
        thresholds: { availability: '>= 99.9%', 'listFlows.latency.p99': '< 5s' },
      }),
    );
    const base = service.baseUrl;
    shardFiles = Array.from({ length: SHARDS }, (_, i) => join(dir, `shard-${i + 1}`, 'report.json'));
    exits = await Promise.all(Array.from({ length: SHARDS }, (_, i) => runShard(i + 1, scenario, base, join(dir, `shard-${i + 1}`))));
  }, 60_000);

  afterAll(async () => {
    await service?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('each shard ran its share of the schedule', () => {
    for (const [i, e] of exits.entries()) expect(e.code, `shard ${i + 1}: ${e.stderr}`).toBe(0);
    const shards = shardFiles.map((f) => JSON.parse(readFileSync(f, 'utf8')) as Report);
    const share = (RATE_PER_S * DURATION_S) / SHARDS;
    for (const r of shards) {
      expect(Math.abs(r.load.started - share)).toBeLessThanOrEqual(1);
      expect(r.load.targetRatePerS).toBeCloseTo(RATE_PER_S / SHARDS, 6);
    }
  });

  it('the merged report accounts for the whole schedule and every request', () => {
    const shards = shardFiles.map((f) => JSON.parse(readFileSync(f, 'utf8')) as Report);
    const merged = mergeReports(shards);
    const total = RATE_PER_S * DURATION_S;
    expect(Math.abs(merged.load.started - total)).toBeLessThanOrEqual(SHARDS);
    expect(merged.load.started).toBe(shards.reduce((n, r) => n + r.load.started, 0));
    expect(merged.load.targetRatePerS).toBeCloseTo(RATE_PER_S, 6);
    expect(merged.ops.listFlows?.count).toBe(shards.reduce((n, r) => n + (r.ops.listFlows?.count ?? 0), 0));
    expect(merged.ops.listFlows?.count).toBe(merged.load.started);
    expect(merged.ops.listFlows?.statuses['200']).toBe(merged.load.started);
    expect(merged.slices.reduce((n, s) => n + s.requests, 0)).toBe(merged.load.started);
    expect(merged.slo.good).toBe(merged.load.started);
    expect(merged.thresholds.map((t) => [t.metric, t.passed])).toEqual([
      ['availability', true],
      ['listFlows.latency.p99', true],
    ]);
    // The span covers every shard: from the first start to the last end (within the ms that
    // startedAt/endedAt cut off: each end is its shard's startedAt + durationS).
    const first = Math.min(...shards.map((r) => Date.parse(r.startedAt)));
    const last = Math.max(...shards.map((r) => Date.parse(r.endedAt)));
    expect(Math.abs(merged.durationS - (last - first) / 1000)).toBeLessThanOrEqual(0.0011);
    expect(merged.durationS).toBe(Math.max(...shards.map((r) => Math.round(Date.parse(r.startedAt) - first + r.durationS * 1000))) / 1000);
  });

  it('`flowgauge merge` writes the merged report as json, md and html', async () => {
    const out = join(dir, 'merged', 'merged.json');
    const io = memoryIo({ cwd: dir });
    const code = await main(['merge', ...shardFiles, '-o', out], io);
    expect(code, io.err()).toBe(0);
    for (const f of ['merged.json', 'merged.md', 'merged.html']) expect(existsSync(join(dir, 'merged', f)), f).toBe(true);
    const merged = JSON.parse(readFileSync(out, 'utf8')) as Report;
    expect(merged.load.started).toBe(mergeReports(shardFiles.map((f) => JSON.parse(readFileSync(f, 'utf8')) as Report)).load.started);
    expect(io.out()).toContain('merged 3 reports');
    const bad = memoryIo({ cwd: dir });
    expect(await main(['merge', shardFiles[0] as string, join(dir, 'list-shards.json')], bad)).toBe(2);
    expect(bad.err()).toMatch(/list-shards\.json: not a flowgauge\/report@1 report/);
  });
});

describe('deploy/kubernetes', () => {
  const read = (f: string): Record<string, any>[] =>
    parseAllDocuments(readFileSync(join(ROOT, 'deploy/kubernetes', f), 'utf8')).map((d) => d.toJS() as Record<string, any>);

  it('the Indexed Job runs as many shards as it has pods, and pushes to the Pushgateway Service', () => {
    const [job] = read('job.yaml');
    expect(job?.kind).toBe('Job');
    expect(job?.spec.completionMode).toBe('Indexed');
    expect(job?.spec.parallelism).toBe(job?.spec.completions);
    const container = job?.spec.template.spec.containers[0];
    const script = String(container.args[0]);
    expect(script).toContain(`--shards ${job?.spec.completions}`);
    expect(script).toContain('out="/reports/$RUN_ID/shard-$JOB_COMPLETION_INDEX"');
    expect(script).toContain('--out "$out"');
    // The old wrapper passed exit 1 (node itself failing to start) as success: test/e2e/job-wrappers.test.ts runs the new one.
    expect(script).not.toMatch(/-le 1/);
    // A failed shard is not retried (it would send its share again), and does not stop the others.
    expect(job?.spec.backoffLimitPerIndex).toBe(0);
    expect(job?.spec.backoffLimit).toBeUndefined();
    expect(script).not.toMatch(/--token/);
    const env = Object.fromEntries((container.env as { name: string }[]).map((e) => [e.name, e]));
    expect(env.FLOWGAUGE_TOKEN).toMatchObject({ valueFrom: { secretKeyRef: { key: 'token' } } });
    // Every pod holds its clock until the instant filled in when the Job is applied (run --start-at).
    expect(env.FLOWGAUGE_START_AT).toEqual({ name: 'FLOWGAUGE_START_AT', value: '${START_AT}' });
    const [deployment, service] = read('pushgateway.yaml');
    expect([deployment?.kind, service?.kind]).toEqual(['Deployment', 'Service']);
    expect(script).toContain(`--pushgateway http://${service?.metadata.name}:${service?.spec.ports[0].port}`);
  });

  it('the merge Job reads every shard directory of the same run', () => {
    const [job] = read('job.yaml');
    const [merge] = read('merge-job.yaml');
    const runId = (j: Record<string, any> | undefined): unknown =>
      (j?.spec.template.spec.containers[0].env as { name: string; value?: string }[]).find((e) => e.name === 'RUN_ID')?.value;
    expect(runId(merge)).toBe(runId(job));
    const mergeScript = String(merge?.spec.template.spec.containers[0].args[0]);
    expect(mergeScript).toMatch(/set -- \/reports\/"\$RUN_ID"\/shard-\*\/report\.json/);
    expect(mergeScript).toContain('merge "$@" -o "/reports/$RUN_ID/merged/report.json"');
    const claim = (j: Record<string, any> | undefined): unknown => j?.spec.template.spec.volumes[0].persistentVolumeClaim.claimName;
    expect(claim(merge)).toBe(claim(job));
    expect(claim(job)).toBe(read('reports-pvc.yaml')[0]?.metadata.name);
  });
});
