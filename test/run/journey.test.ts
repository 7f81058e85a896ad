/**
 * Journeys end to end against the reference service: every figure is held against what the
 * service itself stored or counted (sessions created, messages in each history, 429s sent),
 * never against numbers this machine's speed decides.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createClient, type Client } from '../../src/api/index.js';
import { renderMarkdown, renderSummary } from '../../src/report/index.js';
import { executeRun, type RunOptions, type RunOutput, type RunSample } from '../../src/run/index.js';
import { createRowSource, resolveScenario, type Journey, type ResolvedRunPlan, type ResolvedScenario } from '../../src/scenario/index.js';
import { startReferenceService, type ReferenceService } from '../../src/target/index.js';

const FREE = 'fg_journey_free_token';
const PRO = 'fg_journey_pro_token';
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

async function service(): Promise<ReferenceService> {
  const s = await startReferenceService({
    latency: 'none',
    tokens: {
      [FREE]: { account: 'acct_a', tier: { limitPerMinute: 10 } },
      [PRO]: { account: 'acct_b', tier: { limitPerMinute: 100_000 } },
    },
  });
  cleanups.push(() => s.close());
  return s;
}

function client(s: ReferenceService, token = PRO): Client {
  const c = createClient({ baseUrl: s.baseUrl, token, connections: 16 });
  cleanups.push(() => c.close());
  return c;
}

/** A scenario whose `journey` field is `journey`, resolved as a scenario file's would be. */
function journeyScenario(name: string, journey: Journey, load: Record<string, unknown>, extra: Record<string, unknown> = {}): ResolvedScenario {
  return resolveScenario({ name, tier: { limitPerMinute: 100_000 }, load, journey, ...extra });
}

function run(s: ReferenceService, scenario: RunOptions['scenario'], more: Partial<RunOptions> = {}) {
  return executeRun({ scenario, client: client(s), target: { baseUrl: s.baseUrl, embedded: true }, ...more });
}

describe('journeys', () => {
  it('a conversation journey stores exactly 6 messages per iteration, each request counted in ops', async () => {
    const s = await service();
    const sessions: string[] = [];
    const conversation: Journey = async (vu) => {
      const created = await vu.createSession({ flow_id: vu.flowId, user_id: `user-${vu.iteration}` });
      if (!created.ok) return vu.fail(`createSession: ${created.error.code}`);
      sessions.push(created.value.id);
      for (let turn = 0; turn < 3; turn++) {
        await vu.step('turn', () => vu.stream(vu.flowId, { input: `turn ${turn} of ${vu.iteration}`, session_id: created.value.id }));
        await vu.sleep('5ms');
      }
      const h = await vu.getHistory(created.value.id);
      vu.check('history holds every turn', h.ok && h.value.messages.length === 6);
    };
    const { report } = await run(s, journeyScenario('conversation', conversation, { rate: '20/s', duration: '500ms' }));

    const iterations = report.iterations;
    expect(iterations?.started).toBe(10);
    expect(iterations?.completed).toBe(10);
    expect(iterations?.failed).toBe(0);
    expect(s.stats().sessions).toBe(10);
    expect(sessions).toHaveLength(10);
    const reader = client(s);
    for (const id of sessions) {
      const h = await reader.getHistory(id);
      expect(h.ok && h.value.messages.length).toBe(6);
    }
    expect(report.ops.createSession?.count).toBe(10);
    expect(report.ops.stream?.count).toBe(30);
    expect(report.ops.getHistory?.count).toBe(10);
    expect(report.stream.completed).toBe(30);
    expect(report.checks?.['history holds every turn']).toEqual({ passes: 10, fails: 0 });
    expect(report.steps?.turn?.count).toBe(30);
    expect(report.histograms['iteration.duration']).toBeTypeOf('string');
    expect(report.verdict).toBe('PASS');
    const summary = renderSummary(report);
    expect(summary).toContain('iterations  10 started, 10 completed, 0 failed, 0 interrupted, 0 dropped');
    expect(summary).toContain('✓ check history holds every turn: 10 passed, 0 failed (100 %)');
    expect(renderMarkdown(report)).toContain('| step turn |');
  });

  it('a journey that throws ends its iteration as failed with the message counted, and the run goes on', async () => {
    const s = await service();
    const journey: Journey = async (vu) => {
      await vu.listFlows({ limit: 1 });
      if (vu.iteration % 2 === 1) throw new Error('odd iteration');
      if (vu.iteration === 4) vu.fail('four is unlucky');
    };
    const { report } = await run(s, journeyScenario('throws', journey, { rate: '20/s', duration: '500ms' }));
    expect(report.iterations?.started).toBe(10);
    expect(report.iterations?.failed).toBe(6);
    expect(report.iterations?.completed).toBe(4);
    expect(report.iterations?.errors).toEqual([
      // What was thrown says where: the line of this file that threw it.
      { message: expect.stringMatching(/^Error: odd iteration \(at test\/run\/journey\.test\.ts:\d+:\d+\)$/), count: 5 },
      { message: 'four is unlucky', count: 1 },
    ]);
    expect(report.ops.listFlows?.count).toBe(10);
  });

  it('judges iteration and check thresholds, and aborts on a failing one from the live state', async () => {
    const s = await service();
    const journey: Journey = async (vu) => {
      vu.check('always false', false);
      await vu.sleep('1ms');
    };
    const scenario = journeyScenario('checks', journey, { rate: '20/s', duration: '5s' }, {
      thresholds: { checks: '>=0.5', 'iterations.failed': '==0', 'checks.always false': { expr: '>0.9', abortOnFail: true } },
    });
    const outcome = await run(s, scenario, { progressIntervalMs: 200 });
    const { report } = outcome;
    expect(report.abortedBy).toBe('checks.always false');
    expect(report.verdict).toBe('ABORTED');
    expect(report.thresholds.find((t) => t.metric === 'checks')?.passed).toBe(false);
    expect(report.thresholds.find((t) => t.metric === 'iterations.failed')?.passed).toBe(true);
    // The abort came at the first tick after the first check, long before the 5 s schedule ended.
    expect(report.iterations?.started).toBeLessThan(100);
  });

  it('iterations still running when the run stops are interrupted, not failed', async () => {
    const s = await service();
    const stop = new AbortController();
    const journey: Journey = async (vu) => {
      await vu.listFlows();
      if (vu.iteration === 2) stop.abort();
      await vu.sleep('10s');
    };
    const { report } = await run(s, journeyScenario('stopped', journey, { rate: '20/s', duration: '5s', gracefulStop: '100ms' }), { stopSignal: stop.signal });
    expect(report.interrupted).toBe(true);
    expect(report.verdict).toBe('INTERRUPTED');
    expect(report.iterations?.failed).toBe(0);
    expect(report.iterations?.interrupted).toBe(report.iterations?.started);
  });

  it('stops a scenario whose unique data ran out, and says so', async () => {
    const s = await service();
    const rows = [{ prompt: 'a' }, { prompt: 'b' }, { prompt: 'c' }];
    const seen: unknown[] = [];
    const journey: Journey = (vu) => {
      seen.push(vu.data.prompt);
    };
    const outcome = await run(s, journeyScenario('unique', journey, { rate: '20/s', duration: '1s' }), { data: { unique: createRowSource(rows, 'unique', 1) } });
    expect(seen).toEqual(['a', 'b', 'c']);
    expect(outcome.dataExhausted).toEqual(['unique']);
    expect(outcome.report.warnings?.map((w) => w.code)).toContain('DATA_EXHAUSTED');
  });

  it('hands outputs frozen plain samples that survive structuredClone and spreading', async () => {
    const s = await service();
    const samples: RunSample[] = [];
    const keep: RunOutput = { name: 'keep', sample: (x) => void samples.push(x) };
    const journey: Journey = async (vu) => {
      await vu.step('list', () => vu.listFlows({ limit: 1 }));
    };
    await run(s, journeyScenario('plain', journey, { rate: '20/s', duration: '200ms' }), { outputs: [keep] });
    expect(samples.length).toBe(4);
    for (const x of samples) {
      expect(Object.isFrozen(x)).toBe(true);
      expect(structuredClone(x)).toEqual({ ...x });
      expect(x.step).toBe('list');
      expect(x.scenario).toBe('plain');
    }
    expect(new Set(samples)).toHaveProperty('size', 4);
  });
});

describe('several scenarios in one run', () => {
  it('isolates tenants: the free one gets exactly the service 429s, the pro one none', async () => {
    const s = await service();
    const free = resolveScenario({ name: 'free', tier: { limitPerMinute: 10 }, load: { rate: '20/s', duration: '1s' }, mix: [{ op: 'listFlows' }] });
    const pro = resolveScenario({ name: 'pro', tier: { limitPerMinute: 100_000 }, load: { rate: '20/s', duration: '1s' }, mix: [{ op: 'listFlows' }] });
    const plan: ResolvedRunPlan = {
      kind: 'plan',
      name: 'tenants',
      description: '',
      scenarios: [free, pro],
      thresholds: [
        { key: 'pro:ratelimit.responses429', expr: '==0', abortOnFail: false },
        { key: 'free:ratelimit.premature429', expr: '==0', abortOnFail: false },
      ],
      objective: 0.999,
      tokenEnv: {},
    };
    const { report } = await run(s, plan, { clients: { free: client(s, FREE), pro: client(s, PRO) } });
    const sent429 = s.stats().rateLimited;
    expect(sent429).toBeGreaterThan(0);
    expect(report.scenarios?.free?.rateLimit.responses429).toBe(sent429);
    expect(report.scenarios?.pro?.rateLimit.responses429).toBe(0);
    expect(report.rateLimit.responses429).toBe(sent429);
    expect(report.scenarios?.free?.ops.listFlows?.count).toBe(report.scenarios?.free?.load.started);
    expect(report.load.started).toBe((report.scenarios?.free?.load.started ?? 0) + (report.scenarios?.pro?.load.started ?? 0));
    expect(report.thresholds.map((t) => [t.metric, t.passed])).toEqual([
      ['pro:ratelimit.responses429', true],
      ['free:ratelimit.premature429', true],
    ]);
  });
});
