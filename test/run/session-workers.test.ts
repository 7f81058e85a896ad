/**
 * A program gets worker threads too: `executeRun({ …, workers: 2 })` is the run session the CLI's
 * `--workers 2` is. The plan goes to the workers resolved, as data, and a journey (code) is taken
 * from its file in each; the outputs of the program's thread hear the merged run. Run alone: it
 * starts threads.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../src/api/index.js';
import { ConfigError } from '../../src/core/errors.js';
import type { Report } from '../../src/report/index.js';
import { createRunSession, executeRun, startNotificationTracking, type RunOutput, type RunProgress } from '../../src/run/index.js';
import { loadScenario, resolveScenario } from '../../src/scenario/index.js';
import { startReferenceService, type ReferenceService } from '../../src/target/index.js';
import { parseExposition } from '../export/helpers/exposition.js';

const TOKEN = 'fg_session_workers_token';
const TIER = { limitPerMinute: 10_000_000 };
let dir: string;
let service: ReferenceService;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fg-session-workers-'));
  service = await startReferenceService({ latency: 'none', tokens: { [TOKEN]: { account: 'acct_s', tier: TIER } } });
});
afterAll(async () => {
  await service.close();
  rmSync(dir, { recursive: true, force: true });
});

const target = () => ({ baseUrl: service.baseUrl, embedded: true });
const connect = () => ({ baseUrl: service.baseUrl, token: TOKEN });

describe('executeRun over worker threads', () => {
  it('a mix over 2 workers sends the one schedule, merged exactly; the outputs here hear the merged progress and report', async () => {
    const file = join(dir, 'mix.json');
    writeFileSync(file, JSON.stringify({ name: 'mix', tier: TIER, load: { rate: '100/s', duration: '2s' }, mix: [{ op: 'listFlows' }], thresholds: {} }));
    const ticks: RunProgress[] = [];
    let ended: Report | undefined;
    const watch: RunOutput = { name: 'watch', tick: (p) => void ticks.push(p), end: (r) => void (ended = r) };
    const { report, passed } = await executeRun({ scenario: await loadScenario(file), connect: connect(), target: target(), workers: 2, outputs: [watch] });
    expect(passed).toBe(true);
    expect(report.load.workers).toBe(2);
    expect(report.load.started).toBe(200);
    expect(report.ops.listFlows?.count).toBe(200);
    expect(report.ops.listFlows?.latencyMs.count).toBe(200);
    expect(ended).toEqual(report);
    // Each tick is both workers' progress merged: it never goes back, and ends within the schedule.
    expect(ticks.length).toBeGreaterThan(0);
    expect(ticks.every((p, i) => i === 0 || p.started >= (ticks[i - 1] as RunProgress).started)).toBe(true);
    expect(ticks.at(-1)?.started ?? 0).toBeLessThanOrEqual(200);
  }, 120_000);

  it('a journey is loaded from its file in each worker; the rest of the plan comes as data (the overrides stay applied)', async () => {
    const file = join(dir, 'journey.mjs');
    writeFileSync(
      file,
      `import { workerData } from 'node:worker_threads';
export default {
  name: 'journey', tier: { limitPerMinute: 10000000 },
  load: { executor: 'constant-arrival-rate', rate: '40/s', duration: '10s' },
  thresholds: {},
  journey: async (vu) => { await vu.step('worker' + (workerData?.shard?.index ?? 'main'), () => vu.listFlows()); },
};
`,
    );
    // The file says 10 s; the override of the program's own resolution makes it 1 s in every worker.
    const scenario = await loadScenario(file, { durationMs: 1000 });
    const { report } = await executeRun({ scenario, connect: connect(), target: target(), workers: 2 });
    expect(report.load.workers).toBe(2);
    expect(report.load.started).toBe(40);
    expect(report.iterations?.completed).toBe(40);
    expect(report.steps?.worker0?.count).toBe(20);
    expect(report.steps?.worker1?.count).toBe(20);
    expect(report.steps?.workermain).toBeUndefined();
  }, 120_000);

  it("a shard of a distributed run over 2 workers: the merge says the process's shard (not the workers'), and a late start joins in phase in every worker", async () => {
    const file = join(dir, 'late.json');
    writeFileSync(file, JSON.stringify({ name: 'late', tier: TIER, load: { rate: '100/s', duration: '10s' }, mix: [{ op: 'listFlows' }], thresholds: {} }));
    const shard = { index: 1, count: 2, runId: 'release-1', fingerprint: 'fp-late' };
    // Shared start 3 s ago: each worker joins its schedule at least that far in, on its own clock.
    const { report, passed } = await executeRun({ scenario: await loadScenario(file), connect: connect(), target: target(), workers: 2, shard, startAtMs: Date.now() - 3000 });
    expect(passed).toBe(true);
    expect(report.shard).toEqual({ index: 2, count: 2, runId: 'release-1', fingerprint: 'fp-late' });
    // The workers' shards (2 and 4 of 4) are not merged as shards of a run: nothing is missing.
    expect(report.shards).toBeUndefined();
    expect(report.load.workers).toBe(2);
    // Shard 2 of 2 holds every other arrival of 1,000: each was sent, dropped or missed (due before
    // the join). 150 of them fall in the first 3 s, and every worker joined later than that.
    const missed = report.load.missed ?? 0;
    expect(missed).toBeGreaterThanOrEqual(150);
    expect(report.load.started + report.load.dropped + missed).toBe(500);
    expect(report.load.joinedAtS).toBeGreaterThanOrEqual(3);
    expect(report.warnings?.some((w) => w.code === 'JOINED_LATE')).toBe(true);
  }, 120_000);

  it('the exporters are told the target name: over workers every combined series carries it', async () => {
    const file = join(dir, 'named.json');
    writeFileSync(file, JSON.stringify({ name: 'named', tier: TIER, load: { rate: '50/s', duration: '1s' }, mix: [{ op: 'listFlows' }], thresholds: {} }));
    let said = '';
    const session = await createRunSession({
      scenario: await loadScenario(file),
      connect: connect(),
      target: target(),
      targetName: 'staging',
      workers: 2,
      exporters: { prometheus: { port: 0 } },
      log: { write: (t) => void (said += t) },
    });
    try {
      const { report } = await session.run();
      const url = /Prometheus metrics at (\S+)/.exec(said)?.[1] as string;
      const series = parseExposition(await (await fetch(url)).text()).filter((x) => x.name.startsWith('flowgauge_'));
      expect(series.length).toBeGreaterThan(0);
      expect(series.filter((x) => x.labels.target !== 'staging')).toEqual([]);
      expect(series.filter((x) => x.name === 'flowgauge_requests_total').reduce((n, x) => n + x.value, 0)).toBe(report.ops.listFlows?.count);
    } finally {
      await session.close();
    }
    await expect(executeRun({ scenario: await loadScenario(file), connect: connect(), target: target(), targetName: 'not a name' })).rejects.toThrow(/targetName must be/);
  }, 120_000);

  it('refuses, before anything starts, what needs one thread: a journey with no file, a receiver, a clock', async () => {
    const journey = resolveScenario({ name: 'inline', tier: TIER, load: { rate: '1/s', duration: '1s' }, journey: async () => undefined });
    const before = service.stats().requests;
    await expect(executeRun({ scenario: journey, connect: connect(), target: target(), workers: 2 })).rejects.toSatisfy(
      (e: unknown) => e instanceof ConfigError && /journey, which is code a worker thread can only load from the scenario's file/.test(e.message),
    );
    const tracking = await startNotificationTracking({ port: 0, secret: 'a-secret-of-some-length' });
    const mix = resolveScenario({ name: 'mix', tier: TIER, load: { rate: '1/s', duration: '1s' }, mix: [{ op: 'listFlows' }] });
    const client = createClient({ baseUrl: service.baseUrl, token: TOKEN });
    try {
      await expect(executeRun({ scenario: mix, client, target: target(), workers: 2, notifications: tracking })).rejects.toSatisfy(
        (e: unknown) => e instanceof ConfigError && e.issues.some((i) => i.path === 'notifications' && /needs the run in one thread/.test(i.message)),
      );
    } finally {
      await tracking.close();
      await client.close();
    }
    expect(service.stats().requests).toBe(before);
  });
});
