import type { LookupFunction } from 'node:net';
import { inspect } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { createFakeClock, NS_PER_MS } from '../../src/core/clock.js';
import { ConfigError } from '../../src/core/errors.js';
import { createProbeMetrics } from '../../src/export/index.js';
import {
  buildSloStatus,
  CHECK_NAMES,
  createProbeRunner,
  openHistoryWriter,
  readHistory,
  type IncidentEvent,
  type ProbeRecord,
} from '../../src/probe/index.js';
import { startReferenceService, type ReferenceService } from '../../src/target/index.js';
import { removeTempDirs, tempDir } from './helpers.js';

const services: ReferenceService[] = [];
afterEach(async () => {
  await Promise.all(services.splice(0).map((s) => s.close()));
  removeTempDirs();
});

async function service(options: Parameters<typeof startReferenceService>[0] = {}): Promise<ReferenceService> {
  const s = await startReferenceService({ latency: 'none', ...options });
  services.push(s);
  return s;
}

describe('probe runner against the reference service', () => {
  it('runs every check once per round and records phases, status and stream TTFT', async () => {
    const svc = await service({ latency: { ttftMs: 5, itlMs: 1, tokens: { min: 3, max: 3 }, runOverheadMs: 0 } });
    const host = new URL(svc.baseUrl).host;
    const metrics = createProbeMetrics({ target: host });
    const runner = createProbeRunner({ target: { baseUrl: svc.baseUrl, webhookHost: svc.webhookHost, token: svc.tokens.pro }, metrics });
    const round = await runner.runRound();
    expect(round.records.map((r) => [r.check, r.success, r.status, r.error])).toEqual(CHECK_NAMES.map((c) => [c, true, 200, null]));
    expect(round.success).toBe(true);
    for (const r of round.records) {
      // The target defaults to the base URL's host: a name, never the path.
      expect(r).toMatchObject({ v: 1, target: host, round: 0, intervalMs: 30_000, tls: null });
      expect(r.phasesMs.dns).toBeNull();
      expect(r.phasesMs.connect).toBeGreaterThanOrEqual(0);
      expect(r.phasesMs.ttfb).toBeGreaterThanOrEqual(0);
      expect(r.phasesMs.total).toBeGreaterThanOrEqual(r.phasesMs.ttfb as number);
    }
    const stream = round.records.find((r) => r.check === 'stream') as ProbeRecord;
    expect(stream.ttftMs).toBeGreaterThan(0);
    expect(stream.ttftMs).toBeLessThanOrEqual(stream.phasesMs.total);
    expect(round.records.filter((r) => r.check !== 'stream').every((r) => r.ttftMs === null)).toBe(true);

    const text = await metrics.registry.metrics();
    expect(text).toContain(`flowgauge_probe_success{target="${host}",check="stream"} 1`);
    expect(text).toContain(`flowgauge_probe_total{target="${host}",check="run",result="success"} 1`);
    expect(text).toContain(`flowgauge_probe_duration_seconds_count{target="${host}",check="stream",phase="ttft"} 1`);
    expect(text).toContain(`flowgauge_probe_duration_seconds_count{target="${host}",check="listFlows",phase="connect"} 1`);
    // The token appears nowhere the runner puts data.
    const token = svc.tokens.pro;
    expect(JSON.stringify(round)).not.toContain(token);
    expect(text).not.toContain(token);
    expect(inspect(runner, { depth: 10 })).not.toContain(token);
    expect(JSON.stringify(runner.options)).not.toContain(token);
  });

  it('records and exports the DNS phase when the target is named', async () => {
    const svc = await service();
    const metrics = createProbeMetrics({ target: 'probe.test' });
    const lookup = ((_host: string, opts: { all?: boolean }, cb: (...a: unknown[]) => void) =>
      setImmediate(() => (opts.all === true ? cb(null, [{ address: '127.0.0.1', family: 4 }]) : cb(null, '127.0.0.1', 4)))) as unknown as LookupFunction;
    const runner = createProbeRunner({
      target: { baseUrl: `http://probe.test:${svc.port}/v1`, token: svc.tokens.pro, name: 'probe.test' },
      checks: ['listFlows'],
      metrics,
      lookup,
    });
    const [r] = (await runner.runRound()).records;
    expect(r?.success).toBe(true);
    expect(r?.phasesMs.dns).toBeGreaterThanOrEqual(0);
    expect(await metrics.registry.metrics()).toContain('flowgauge_probe_duration_seconds_count{target="probe.test",check="listFlows",phase="dns"} 1');
  });

  it('classifies failures per check', async () => {
    const svc = await service({ failureRate: 1 });
    const runner = createProbeRunner({ target: { baseUrl: svc.baseUrl, token: svc.tokens.pro }, checks: ['run', 'stream', 'listFlows'] });
    const byCheck = Object.fromEntries((await runner.runRound()).records.map((r) => [r.check, r]));
    expect(byCheck.run).toMatchObject({ success: false, status: 200, error: 'RUN_FAILED' });
    expect(byCheck.stream).toMatchObject({ success: false, status: 200, error: 'STREAM_ERROR_EVENT' });
    expect(byCheck.listFlows).toMatchObject({ success: true });

    const bad = createProbeRunner({ target: { baseUrl: svc.baseUrl, token: 'fg_wrong' }, checks: ['listFlows', 'getFlow'] });
    const denied = (await bad.runRound()).records;
    expect(denied.map((r) => [r.check, r.status, r.error])).toEqual([
      ['listFlows', 401, 'UNAUTHORIZED'],
      ['getFlow', 401, 'UNAUTHORIZED'],
    ]);
    expect(denied[1]?.detail).toBe('flow discovery failed');

    const missing = createProbeRunner({ target: { baseUrl: svc.baseUrl, token: svc.tokens.pro }, checks: ['getFlow'], flowId: 'flow_nope' });
    expect((await missing.runRound()).records[0]).toMatchObject({ status: 404, error: 'NOT_FOUND' });
  });

  it('measures an outage switched on between probes as exactly its span, in probe intervals', async () => {
    const svc = await service();
    const clock = createFakeClock({ wallStartMs: Date.UTC(2026, 10, 22, 12) });
    const dir = tempDir();
    const history = await openHistoryWriter({ dir });
    const events: IncidentEvent[] = [];
    const intervalMs = 200;
    const runner = createProbeRunner({
      target: { baseUrl: svc.baseUrl, token: svc.tokens.pro },
      checks: ['listFlows', 'getFlow', 'stream'],
      intervalMs,
      failuresToOpen: 2,
      clock,
      history,
      onIncident: (e) => events.push(e),
    });
    const tick = async (): Promise<void> => {
      clock.advance(intervalMs * NS_PER_MS);
      await runner.whenIdle();
    };
    runner.start(); // round 0 at t = 0
    await runner.whenIdle();
    await tick(); // round 1
    svc.faults.set({ outage: true }); // switched on between rounds 1 and 2
    for (let i = 0; i < 3; i++) await tick(); // rounds 2, 3, 4 see the outage
    svc.faults.clear(); // off between rounds 4 and 5
    for (let i = 0; i < 3; i++) await tick(); // rounds 5, 6, 7
    await runner.stop();
    await history.close();

    const { records } = await readHistory(dir);
    expect(records).toHaveLength(8 * 3);
    const failedRounds = [...new Set(records.filter((r) => !r.success).map((r) => r.round))];
    expect(failedRounds).toEqual([2, 3, 4]);
    expect(records.filter((r) => !r.success).every((r) => r.status === 503 && r.error === 'SERVICE_UNAVAILABLE')).toBe(true);
    expect(events.map((e) => `${e.kind} ${e.incident.check}`)).toEqual([
      'opened listFlows',
      'opened getFlow',
      'opened stream',
      'opened overall',
      'closed listFlows',
      'closed getFlow',
      'closed stream',
      'closed overall',
    ]);

    // Downtime measured from the history equals the outage: 3 intervals. The status is taken one
    // interval after the last round, whose outcome stands for that interval.
    const nowMs = clock.wallMs() + intervalMs;
    const status = buildSloStatus(records, { nowMs, windowMs: 86_400_000, failuresToOpen: 2 });
    const intervals = (minutes: number | undefined): number => ((minutes ?? Number.NaN) * 60_000) / intervalMs;
    expect(intervals(status.overall.downMinutes)).toBeCloseTo(3, 3);
    expect(intervals(status.overall.observedMinutes)).toBeCloseTo(8, 3);
    expect(status.overall.incidents).toHaveLength(1);
    expect(intervals(status.overall.incidents[0]?.durationMinutes)).toBeCloseTo(3, 3);
    for (const c of status.checks) expect(intervals(c.downMinutes)).toBeCloseTo(3, 3);
    expect(status.overall.probes).toBe(8);
    expect(status.checks.map((c) => c.successes)).toEqual([5, 5, 5]);
  });

  it('continues runs of failures across a restart', async () => {
    const svc = await service();
    svc.faults.set({ outage: true });
    const opts = { target: { baseUrl: svc.baseUrl, token: svc.tokens.pro }, checks: ['listFlows' as const], failuresToOpen: 3 };
    const first = createProbeRunner(opts);
    const previous = [...(await first.runRound()).records, ...(await first.runRound()).records];
    const events: IncidentEvent[] = [];
    const second = createProbeRunner({ ...opts, previous, onIncident: (e) => events.push(e) });
    await second.runRound();
    expect(events.map((e) => [e.kind, e.incident.check, e.incident.failures])).toEqual([
      ['opened', 'listFlows', 3],
      ['opened', 'overall', 3],
    ]);
    expect(events[0]?.incident.startMs).toBe(Date.parse(previous[0]?.time as string));
  });

  it('refuses bad options, listing every problem and never the token', () => {
    const token = 'fg_secret_token_value';
    let err: unknown;
    try {
      createProbeRunner({ target: { baseUrl: 'ftp://x/v1', token: `${token}\n` }, checks: ['nope' as 'run'], intervalMs: -1, failuresToOpen: 1.5 });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    const issues = (err as ConfigError).issues.map((i) => i.path);
    expect(issues).toEqual(['target.baseUrl', 'target.token', 'checks[0]', 'intervalMs', 'failuresToOpen']);
    expect((err as Error).message).not.toContain(token);
    const named = () => createProbeRunner({ target: { baseUrl: 'http://127.0.0.1:9/v1', token, name: 'https://api.example.com/v1' } });
    expect(named).toThrow(ConfigError);
    expect(() => named()).toThrow(/target\.name/);
    // Metrics labelled for another target would blend two targets' series.
    expect(() => createProbeRunner({ target: { baseUrl: 'http://127.0.0.1:9/v1', token }, metrics: createProbeMetrics({ target: 'other' }) })).toThrow(/target="other"/);
  });

  it('says which records the history could not store, and reports them as not stored', async () => {
    const svc = await service();
    const seen: [string, boolean][] = [];
    const errors: string[] = [];
    let n = 0;
    // Every other append fails, as a full disk does.
    const history = { dir: '/nowhere', append: async () => (n++ % 2 === 0 ? { ok: true as const } : { ok: false as const, error: 'ENOSPC' }), close: async () => undefined };
    const runner = createProbeRunner({
      target: { baseUrl: svc.baseUrl, token: svc.tokens.pro },
      checks: ['listFlows', 'getFlow'],
      history,
      onRecord: (r, stored) => seen.push([r.check, stored]),
      onHistoryError: (e) => errors.push(e),
    });
    const round = await runner.runRound();
    expect(round.unstored).toBe(1);
    expect(seen).toEqual([
      ['listFlows', true],
      ['getFlow', false],
    ]);
    expect(errors).toEqual(['ENOSPC']);
    expect(runner.stats().historyErrors).toBe(1);
  });
});
