/**
 * Small truths a new user checks by hand (issue 28 item 7), each against the embedded reference
 * service with the truth known: the starts counted when unique data runs out, a ramp's target
 * rate, how exactly a deadline cuts, and runs a journey polls itself not polled again.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createClient } from '../../src/api/index.js';
import { renderHtml, renderMarkdown, renderSummary, type Report } from '../../src/report/index.js';
import { executeRun, type RunOptions, type RunOutcome, type RunOutput } from '../../src/run/index.js';
import { withWishes, type RunWishes } from './helpers.js';
import { createRowSource, resolveScenario, type Journey, type RowSource } from '../../src/scenario/index.js';
import { startReferenceService, type ReferenceServiceOptions } from '../../src/target/index.js';

const TOKEN = 'fg_small_truths_token';
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

async function runOn(
  scenario: Record<string, unknown>,
  opts: { service?: ReferenceServiceOptions; data?: Record<string, RowSource>; run?: Partial<RunOptions> & RunWishes } = {},
): Promise<RunOutcome> {
  const service = await startReferenceService({ latency: 'none', tokens: { [TOKEN]: { account: 'acct_t', tier: { limitPerMinute: 1_000_000 } } }, ...opts.service });
  cleanups.push(() => service.close());
  const client = createClient({ baseUrl: service.baseUrl, token: TOKEN, connections: 16 });
  cleanups.push(() => client.close());
  // The generator's own warnings (a busy machine) are left out: each test reads the run's.
  const options = withWishes({ follow: false, ...opts.run, generator: false });
  return executeRun({
    scenario: resolveScenario({ tier: { limitPerMinute: 1_000_000 }, thresholds: {}, ...scenario }),
    client,
    target: { baseUrl: service.baseUrl, embedded: true },
    ...(opts.data !== undefined ? { data: opts.data } : {}),
    ...options,
  });
}

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
};

describe('unique data running out after 5 rows', () => {
  const rows = [1, 2, 3, 4, 5].map((n) => ({ prompt: `row ${n}` }));
  const journey: Journey = async (vu) => {
    await vu.listFlows({ limit: 1 });
  };

  it('open model: 5 iterations started, and load.started says 5', async () => {
    const { report, dataExhausted } = await runOn({ name: 'unique-open', load: { rate: '20/s', duration: '2s' }, journey }, { data: { 'unique-open': createRowSource(rows, 'unique', 1) } });
    expect(dataExhausted).toEqual(['unique-open']);
    expect(report.iterations?.started).toBe(5);
    expect(report.load.started).toBe(5);
    expect(report.load.dropped).toBe(0);
    expect(report.load.scheduleLagMs.count).toBe(5);
    expect(report.warnings?.find((w) => w.code === 'DATA_EXHAUSTED')?.message).toContain('after 5 iterations');
  });

  it('closed model: 3 workers, 5 rows: 5 started, none of the workers starts a sixth', async () => {
    const { report } = await runOn(
      { name: 'unique-closed', load: { executor: 'constant-concurrency', concurrency: 3, duration: '2s' }, journey },
      { data: { 'unique-closed': createRowSource(rows, 'unique', 1) } },
    );
    expect(report.iterations?.started).toBe(5);
    expect(report.load.started).toBe(5);
  });
});

describe('a ramp 0 → 20/s, then 20/s', () => {
  it('targetRatePerS is the peak stage rate (20), not the mean over the ramp (13.75), and no warning says it fell short', async () => {
    // The user's 5 s + 3 s, ten times shorter: the mean would be 13.75/s all the same.
    const { report } = await runOn({
      name: 'ramp',
      load: { executor: 'ramping-arrival-rate', startRate: '0/s', stages: [{ duration: '500ms', target: '20/s' }, { duration: '300ms', target: '20/s' }] },
      mix: [{ op: 'listFlows' }],
    });
    expect(report.load.targetRatePerS).toBe(20);
    // The achieved rate is the schedule's mean: below the peak by the ramp's nature.
    expect(report.load.achievedRatePerS).toBeLessThan(20);
    // Nothing says the ramp fell short of its target (a busy machine's lag is another matter).
    expect((report.warnings ?? []).filter((w) => w.code !== 'SCHEDULE_BEHIND')).toEqual([]);
    expect(report.load.dropped).toBe(0);
  });
});

describe('timeouts.stream: 1500ms against a stream that stalls', () => {
  it('cuts each stream at 1,500 ms: the median cut lies within 1 % (15 ms) of it beyond the event loop\'s own delay, none earlier', async () => {
    // Each stream's time from its start to its cut, and beside each a plain 1,500 ms timer: how
    // late this (possibly busy) process runs timers at all, the client's own scheduling.
    const cutMs: number[] = [];
    const loopLateMs: number[] = [];
    const watch: RunOutput = {
      name: 'deadline-watch',
      request() {
        const t0 = performance.now();
        setTimeout(() => loopLateMs.push(performance.now() - t0 - 1500), 1500);
        return undefined;
      },
      sample(x) {
        if (x.op === 'stream') cutMs.push((x.endNs - x.startNs) / 1e6);
      },
    };
    const { report } = await runOn(
      { name: 'stall', load: { rate: '10/s', duration: '1s' }, mix: [{ op: 'stream' }], timeouts: { stream: '1500ms' } },
      { service: { faults: { streamStall: { afterTokens: 1, pauseMs: '10s', rate: 1 } } }, run: { outputs: [watch] } },
    );
    const s = report.ops.stream;
    expect(s?.errors.TIMEOUT).toBe(s?.count);
    expect(s?.count).toBeGreaterThanOrEqual(9);
    expect(cutMs).toHaveLength(s?.count as number);
    expect(Math.min(...cutMs)).toBeGreaterThanOrEqual(1499);
    // A sweep every quarter of the deadline cut at 1,500–1,875 ms (1,627–1,752 seen).
    expect(median(cutMs) - Math.max(0, median(loopLateMs))).toBeLessThanOrEqual(1515);
    // The report's latency runs from the intended start: the schedule's lag comes on top.
    expect(s?.latencyMs.p50).toBeGreaterThanOrEqual(1500);
  });
});

describe('a journey that polls its own runs (async service)', () => {
  const service: ReferenceServiceOptions = { runMode: 'async', latency: { ttftMs: 150, itlMs: 5, jitter: 0, runOverheadMs: 0, tokens: { min: 10, max: 10 } } };

  it('is not followed too: ops.getRun holds every poll, following sends none, and the ends still reach the audit', async () => {
    let polls = 0;
    const journey: Journey = async (vu) => {
      const started = await vu.run(vu.flowId, { input: `poll it ${vu.iteration}` });
      if (!started.ok) return vu.fail(started.error.code);
      for (let status = started.value.status; status === 'running'; ) {
        await vu.sleep('20ms');
        polls++;
        const r = await vu.getRun(started.value.id);
        if (!r.ok) return vu.fail(r.error.code);
        status = r.value.status;
      }
    };
    const { report } = await runOn(
      { name: 'self-poll', load: { rate: '10/s', duration: '500ms' }, journey },
      // The follower would poll every 50 ms: well before these runs end (~200 ms).
      { service, run: { follow: { pollIntervalMs: 50 }, audit: true } },
    );
    expect(report.iterations?.completed).toBe(5);
    expect(polls).toBeGreaterThanOrEqual(25);
    expect(report.ops.getRun?.count).toBe(polls);
    expect(report.asyncRuns?.polls.total ?? 0).toBe(0);
    expect(report.asyncRuns?.followed.run ?? 0).toBe(0);
    // The journey's own polls told each run's end: the audit counts every run and token.
    const usage = report.audit?.usage;
    expect(usage?.clientUnknown.unresolved).toBe(0);
    expect(usage?.client.totalRuns).toBe(5);
    expect(usage?.exact).toBe(true);
    // No follower polls, no row for them.
    expect(renderSummary(report)).not.toContain('getRun (follow)');
  });

  it('a steps journey that polls is not followed either', async () => {
    const { report } = await runOn(
      {
        name: 'steps-poll',
        load: { rate: '10/s', duration: '300ms' },
        steps: [
          { op: 'run', input: 'poll me', save: { id: 'id' } },
          { sleep: '20ms' },
          { op: 'getRun', runId: '{{id}}' },
        ],
      },
      { service, run: { follow: { pollIntervalMs: 50 } } },
    );
    expect(report.ops.getRun?.count).toBe(3);
    expect(report.asyncRuns?.polls.total ?? 0).toBe(0);
  });

  it('a journey that leaves its runs alone is followed, and the follower\'s polls have their own row, not an ops key', async () => {
    const journey: Journey = async (vu) => {
      await vu.run(vu.flowId, { input: 'leave it' });
    };
    const { report } = await runOn({ name: 'no-poll', load: { rate: '10/s', duration: '300ms' }, journey }, { service, run: { follow: { pollIntervalMs: 50 } } });
    const a = report.asyncRuns;
    expect(a?.followed.run).toBe(3);
    expect(a?.final.completed).toBe(3);
    expect(a?.polls.total).toBeGreaterThanOrEqual(3);
    expect(report.ops.getRun).toBeUndefined();
    expect(Object.keys(report.ops)).toEqual(['run']);
    const rowOf = (text: string): string | undefined => text.split('\n').find((l) => l.includes('getRun (follow)'));
    expect(rowOf(renderSummary(report))).toMatch(new RegExp(`getRun \\(follow\\)\\s+${a?.polls.total}\\s+100%`));
    expect(rowOf(renderMarkdown(report))).toContain(`| ${a?.polls.total} |`);
    expect(renderHtml(report as Report, { uplotJs: '', uplotCss: '' })).toContain('getRun (follow)');
  });
});
