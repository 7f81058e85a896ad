/**
 * A run that starts after the instant its shards share (`startAtMs`, from `--start-at`) joins its
 * schedule in phase (issue 38, item 2): on a fake clock and a client that answers at once, every
 * request it sends is at the wall instant an on-time shard would have sent it, the arrivals
 * already due are counted as missed, and the report says how late it joined. Up to a second late
 * it starts at once, shifted, as before. Its report says which shard of which run it is.
 */
import { describe, expect, it } from 'vitest';
import { createTransportError, type CallOptions, type Client, type ResponseMeta } from '../../src/api/index.js';
import { createFakeClock, type FakeClock } from '../../src/core/clock.js';
import type { Report } from '../../src/report/index.js';
import { executeRun, type RunOptions, type RunOutput } from '../../src/run/index.js';
import { resolveRunPlan, resolveScenario } from '../../src/scenario/index.js';

const START_AT = Date.UTC(2026, 4, 1, 12, 0, 0);

/** A client whose listFlows answers at once, on `clock`. */
function instantClient(clock: FakeClock): Client {
  const meta = (t: number): ResponseMeta => ({ status: 200, requestId: undefined, rateLimit: undefined, startNs: t, headersNs: t, endNs: t, sentNs: t, connectNs: 0, tlsNs: 0 });
  const answer = (opts: CallOptions | undefined) =>
    Promise.resolve(opts?.signal?.aborted === true ? { ok: false, error: createTransportError('ABORTED', 'aborted'), meta: meta(clock.nowNs()), violations: [] } : { ok: true, value: { flows: [{ id: 'flow_1' }], total: 1 }, meta: meta(clock.nowNs()), violations: [] });
  return { baseUrl: 'http://instant.invalid/v1', webhookHost: 'http://instant.invalid', listFlows: (_q: unknown, opts?: CallOptions) => answer(opts), close: () => Promise.resolve() } as unknown as Client;
}

/** The wall instants (ms) of every request's intended start. */
function intendedWall(): { output: RunOutput; wallMs: number[]; readonly started: boolean } {
  const wallMs: number[] = [];
  let toWall = (_ns: number): number => Number.NaN;
  let started = false;
  return {
    wallMs,
    get started() {
      return started;
    },
    output: {
      name: 'intended',
      start: (ctx) => {
        started = true;
        toWall = (ns) => ctx.startedAtMs + (ns - ctx.runStartNs) / 1e6;
      },
      sample: (s) => void wallMs.push(toWall(s.intendedNs)),
    },
  };
}

/** Runs `scenario` on a fake clock whose wall time is `lateMs` past START_AT when the run starts. */
async function runLate(scenario: RunOptions['scenario'], lateMs: number, more: Partial<RunOptions> = {}): Promise<{ report: Report; wallMs: number[] }> {
  const clock = createFakeClock({ wallStartMs: START_AT + lateMs });
  const seen = intendedWall();
  const outcome = executeRun({ scenario, client: instantClient(clock), clock, target: { baseUrl: 'http://instant.invalid/v1', embedded: false }, startAtMs: START_AT, outputs: [seen.output], ...more });
  let done = false;
  void outcome.finally(() => (done = true));
  // The clock stands still while the run prepares, so it starts exactly `lateMs` after START_AT.
  for (let turns = 0; !done && turns < 5000; turns++) {
    if (seen.started) clock.advance(50e6);
    await new Promise((r) => setImmediate(r));
  }
  return { report: (await outcome).report, wallMs: seen.wallMs };
}

const tenPerSecond = resolveScenario({ name: 'late', tier: 'pro', load: { rate: '10/s', duration: '10s', gracefulStop: '1s' }, mix: [{ op: 'listFlows' }] });

describe('a run that starts after --start-at', () => {
  it('3.2 s late: sends the arrivals from 3.2 s on at their own wall instants, the 32 before missed, and says so', async () => {
    const { report, wallMs } = await runLate(tenPerSecond, 3200);
    // On time, arrival i is at START_AT + i × 100 ms; those at 0 … 3.1 s had passed.
    const truth = Array.from({ length: 100 }, (_, i) => START_AT + i * 100).filter((t) => t >= START_AT + 3200);
    expect(wallMs).toHaveLength(truth.length);
    for (const [i, t] of wallMs.entries()) expect(Math.abs(t - (truth[i] as number))).toBeLessThan(0.001);
    expect(report.load).toMatchObject({ started: 68, missed: 32, joinedAtS: 3.2 });
    // It ran the rest of the schedule: 6.8 s, at the shard's own rate.
    expect(report.load.scheduleS).toBe(6.8);
    expect(report.startedAt).toBe(new Date(START_AT + 3200).toISOString());
    const w = report.warnings?.find((x) => x.code === 'JOINED_LATE');
    expect(w?.message).toBe(
      'came up 3.2 s after --start-at and joined its schedule in phase: the 32 arrivals due before then were not sent (load.missed), every later one at its own instant. Give the shards a wider margin before --start-at',
    );
  });

  it('as a shard: its share from the join on, in phase with the whole schedule', async () => {
    const { report, wallMs } = await runLate(tenPerSecond, 2500, { shard: { index: 1, count: 3, runId: 'r-1', fingerprint: 'abcd' } });
    // Shard 2 of 3 sends arrivals 1, 4, 7, …: those from 2.5 s on (1 … 22 had passed).
    const truth = Array.from({ length: 100 }, (_, i) => i).filter((i) => i % 3 === 1).map((i) => START_AT + i * 100).filter((t) => t >= START_AT + 2500);
    expect(wallMs.map((t) => Math.round(t))).toEqual(truth);
    expect(report.load.missed).toBe(8);
    expect(report.shard).toEqual({ index: 2, count: 3, runId: 'r-1', fingerprint: 'abcd' });
  });

  it('up to a second late: starts at once, every arrival sent, shifted by as much, nothing said', async () => {
    const { report, wallMs } = await runLate(tenPerSecond, 800);
    expect(report.load.started).toBe(100);
    expect(report.load.missed).toBeUndefined();
    expect(report.load.joinedAtS).toBeUndefined();
    expect(Math.round((wallMs[0] as number) - START_AT)).toBe(800);
    expect(report.warnings?.some((w) => w.code === 'JOINED_LATE') ?? false).toBe(false);
  });

  it('a scenario that starts later in the run is not late: it waits for its own start, the joined one misses its share', async () => {
    const plan = resolveRunPlan({
      name: 'two',
      scenarios: {
        first: { tier: 'pro', load: { rate: '10/s', duration: '4s', gracefulStop: '1s' }, mix: [{ op: 'listFlows' }] },
        later: { tier: 'pro', startAfter: '5s', load: { rate: '10/s', duration: '2s', gracefulStop: '1s' }, mix: [{ op: 'listFlows' }] },
      },
    });
    const { report, wallMs } = await runLate(plan, 2000);
    expect(report.scenarios?.first?.load).toMatchObject({ started: 20, missed: 20, joinedAtS: 2 });
    expect(report.scenarios?.later?.load.started).toBe(20);
    expect(report.scenarios?.later?.load.missed).toBeUndefined();
    expect(report.load).toMatchObject({ started: 40, missed: 20, joinedAtS: 2 });
    // The later scenario's first arrival at its own instant, 5 s after START_AT.
    expect(Math.round(Math.min(...wallMs.filter((t) => t >= START_AT + 4000)) - START_AT)).toBe(5000);
  });

  it('ready only after the whole schedule: refused before the first request (exit 2), no report of nothing sent', async () => {
    const clock = createFakeClock({ wallStartMs: START_AT + 10_000 });
    const client = instantClient(clock);
    let sent = 0;
    const counting = { ...client, listFlows: (q: unknown, opts?: CallOptions) => (sent++, client.listFlows(q as never, opts)) } as unknown as Client;
    const before = sent;
    await expect(executeRun({ scenario: tenPerSecond, client: counting, clock, target: { baseUrl: 'http://instant.invalid/v1', embedded: false }, startAtMs: START_AT })).rejects.toMatchObject({
      code: 'FG_CONFIG_INVALID',
      message: "ready 10.0 s after --start-at, past the scenario's whole 10.0 s schedule: nothing is left to send, so nothing was sent and no report written; start the shards with a wider margin before --start-at",
    });
    // Only the preparation asked anything (for a flow id); no arrival of the schedule was sent.
    expect(sent - before).toBeLessThanOrEqual(1);
  });

  it('the closed model: its workers run what is left of the schedule; nothing missed', async () => {
    const closed = resolveScenario({ name: 'closed', tier: 'pro', load: { executor: 'constant-concurrency', concurrency: 2, duration: '10s', gracefulStop: '1s' }, mix: [{ op: 'listFlows' }] });
    const { report } = await runLate(closed, 4000);
    expect(report.load.scheduleS).toBe(6);
    expect(report.load.missed).toBeUndefined();
    expect(report.load.joinedAtS).toBe(4);
    expect(report.warnings?.find((w) => w.code === 'JOINED_LATE')?.message).toContain('its closed-model workers ran 4.0 s less than the schedule and ended with it (fewer iterations, nothing missed)');
  });
});
