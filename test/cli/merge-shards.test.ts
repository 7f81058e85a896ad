/**
 * `flowgauge run --shard` and `flowgauge merge` through `main` (issue 38, item 1): a shard's
 * report says which shard of which run it is; merge exits 0 for the whole run, 1 naming the
 * missing shard (the report written, PARTIAL) unless --allow-partial, and 2 naming the files for
 * reports of another run or scenario or the same shard twice.
 */
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import type { Report } from '../../src/report/index.js';
import { startReferenceService, type ReferenceService } from '../../src/target/index.js';

const TOKEN = 'fg_merge_shards_token';
let dir: string;
let scenario: string;
let service: ReferenceService;
const file = (name: string): string => join(dir, name, 'report.json');

async function cli(argv: string[], env: Record<string, string> = {}): Promise<{ code: number; out: string; err: string }> {
  const io = memoryIo({ cwd: dir, env: { FLOWGAUGE_TOKEN: TOKEN, ...env } });
  const code = await main(argv, io);
  return { code, out: io.out(), err: io.err() };
}

const shard = (i: number, out: string, more: string[] = [], runId = 'rehearsal-1') =>
  cli(['run', scenario, '--base-url', service.baseUrl, '--shard', `${i}/2`, '--out', join(dir, out), '--quiet', '--no-audit', ...more], { FLOWGAUGE_RUN_ID: runId });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fg-merge-shards-'));
  service = await startReferenceService({ latency: 'none', tokens: { [TOKEN]: { account: 'acct_m', tier: 'pro' } } });
  scenario = join(dir, 'pair.json');
  writeFileSync(scenario, JSON.stringify({ name: 'pair', tier: 'pro', load: { executor: 'constant-arrival-rate', rate: '20/s', duration: '1s' }, mix: [{ op: 'listFlows' }], thresholds: { availability: '>=99%' } }));
  const runs = await Promise.all([shard(1, 's1'), shard(2, 's2'), shard(2, 'other-run', ['--run-id', 'rehearsal-2'], 'ignored: the flag wins'), shard(2, 'other-rate', ['--rate', '30/s'])]);
  for (const r of runs) expect(r.code, r.err).toBe(0);
}, 60_000);
afterAll(async () => {
  await service.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('a shard\'s report', () => {
  it('says its index and count, the run and the scenario\'s fingerprint', () => {
    const [one, two, rated] = [file('s1'), file('s2'), file('other-rate')].map((f) => JSON.parse(readFileSync(f, 'utf8')) as Report);
    expect(one?.shard).toMatchObject({ index: 1, count: 2, runId: 'rehearsal-1' });
    expect(two?.shard).toMatchObject({ index: 2, count: 2, runId: 'rehearsal-1' });
    expect(one?.shard?.fingerprint).toMatch(/^[0-9a-f]{16}$/);
    expect(two?.shard?.fingerprint).toBe(one?.shard?.fingerprint);
    // Another rate is another scenario as resolved.
    expect(rated?.shard?.fingerprint).not.toBe(one?.shard?.fingerprint);
  });

  it('over worker threads: the merged report of the workers says the shard, as one thread\'s does', async () => {
    const r = await shard(1, 'workers', ['--workers', '2']);
    expect(r.code, r.err).toBe(0);
    const report = JSON.parse(readFileSync(file('workers'), 'utf8')) as Report;
    const one = JSON.parse(readFileSync(file('s1'), 'utf8')) as Report;
    expect(report.load.workers).toBe(2);
    expect(report.shard).toEqual(one.shard);
  }, 30_000);

  it('--run-id needs a shard, and must be a name', async () => {
    expect(await cli(['run', scenario, '--base-url', service.baseUrl, '--run-id', 'x'])).toMatchObject({ code: 2, err: expect.stringMatching(/--run-id names the run a shard belongs to: give it with --shard i\/N or --shards N/) });
    expect(await shard(1, 'bad', ['--run-id', ' spaced '])).toMatchObject({ code: 2, err: expect.stringMatching(/--run-id " spaced " is not a run id/) });
    expect(await shard(1, 'bad', [], 'a\tb')).toMatchObject({ code: 2, err: expect.stringMatching(/FLOWGAUGE_RUN_ID "a\tb" is not a run id/) });
    expect(await shard(1, 'bad', ['--run-id', 'a', '--run-id', 'b'])).toMatchObject({ code: 2, err: expect.stringMatching(/--run-id is given more than once/) });
  });
});

describe('flowgauge merge of shards', () => {
  it('every shard: exit 0, the report says which shards it holds', async () => {
    const r = await cli(['merge', file('s1'), file('s2'), '-o', join(dir, 'whole', 'merged.json')]);
    expect(r.code, r.err).toBe(0);
    const merged = JSON.parse(readFileSync(join(dir, 'whole', 'merged.json'), 'utf8')) as Report;
    expect(merged.shards).toMatchObject({ count: 2, present: [1, 2], missing: [], runId: 'rehearsal-1' });
    expect(merged.load.started).toBe(20);
    expect(r.out).toMatch(/^flowgauge pair: PASS /m);
  });

  it('a shard missing: the report of what is there, PARTIAL, the missing shard named, exit 1', async () => {
    const r = await cli(['merge', file('s1'), '-o', join(dir, 'partial', 'merged.json')]);
    expect(r.code).toBe(1);
    expect(r.err).toContain('flowgauge: missing shard 2/2: the merged report holds 1 of 2 shards and is marked PARTIAL (shards.missing): exit 1, never a pass');
    expect(r.out).toMatch(/^flowgauge pair: PARTIAL in /m);
    expect(r.out).toContain('PARTIAL: missing shard 2/2 (1 of 2 merged)');
    const merged = JSON.parse(readFileSync(join(dir, 'partial', 'merged.json'), 'utf8')) as Report;
    expect(merged).toMatchObject({ verdict: 'PARTIAL', passed: false, shards: { present: [1], missing: [2] } });
    expect(readFileSync(join(dir, 'partial', 'merged.md'), 'utf8')).toContain('PARTIAL: missing shard 2/2');
  });

  it('a shard missing with --allow-partial: exit by the thresholds on what is there, still PARTIAL', async () => {
    const r = await cli(['merge', file('s1'), '--allow-partial', '-o', join(dir, 'allowed', 'merged.json')]);
    expect(r.code, r.err).toBe(0);
    expect(r.err).toContain('missing shard 2/2');
    expect(r.err).toContain('--allow-partial: exiting by the thresholds on the shards that are there');
    expect(r.out).toMatch(/^flowgauge pair: PARTIAL in /m);
  });

  it('the same shard twice, another run, another scenario: exit 2 naming the files, nothing written', async () => {
    const again = join(dir, 's2-again.json');
    copyFileSync(file('s2'), again);
    const twice = await cli(['merge', file('s1'), file('s2'), again, '-o', join(dir, 'twice', 'merged.json')]);
    expect(twice.code).toBe(2);
    expect(twice.err).toContain(`cannot merge: shard 2/2 is given twice (${file('s2')}, ${again})`);
    expect(existsSync(join(dir, 'twice'))).toBe(false);
    const sameFile = await cli(['merge', file('s1'), file('s1')]);
    expect(sameFile).toMatchObject({ code: 2, err: expect.stringContaining('is given twice') });
    const otherRun = await cli(['merge', file('s1'), file('other-run')]);
    expect(otherRun.code).toBe(2);
    // Named in the order the shards started, whichever that was.
    expect(otherRun.err).toContain('the reports are of different runs (');
    expect(otherRun.err).toContain(`${file('s1')}: run "rehearsal-1"`);
    expect(otherRun.err).toContain(`${file('other-run')}: run "rehearsal-2"`);
    const otherRate = await cli(['merge', file('s1'), file('other-rate')]);
    expect(otherRate.code).toBe(2);
    expect(otherRate.err).toMatch(/ran different scenarios or settings \(fingerprints [0-9a-f]{16} and [0-9a-f]{16}\)/);
  });
});
