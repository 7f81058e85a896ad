/**
 * The run engine end to end against the reference service: what a user of `flowgauge run`
 * relies on. Runs are short (1–3 s) and the assertions are about counts and classifications,
 * which do not depend on this machine's speed.
 */
import { Ajv } from 'ajv';
import { afterEach, describe, expect, it } from 'vitest';
import { OPS } from '../../src/core/ops.js';
import { REPORT_JSON_SCHEMA } from '../../src/report/index.js';
import type { ReferenceService } from '../../src/target/index.js';
import { runAgainstService, TEST_TOKEN } from './helpers.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

const validate = new Ajv({ allErrors: true, strict: false }).compile(REPORT_JSON_SCHEMA);

describe('executeRun', () => {
  it('writes a schema-valid report with every operation of a mixed scenario', async () => {
    const r = await runAgainstService({
      name: 'all-ops',
      tier: 'pro',
      load: { executor: 'constant-arrival-rate', rate: '90/s', duration: '1s' },
      mix: OPS.map((op) => ({ op, weight: 1 })),
      thresholds: { availability: '>=99.9%', 'run.latency.p99': '<5s' },
    });
    cleanups.push(r.close);
    const { report } = r.outcome;
    expect(validate(report), JSON.stringify(validate.errors)).toBe(true);
    expect(report.schema).toBe('flowgauge/report@1');
    expect(Object.keys(report.ops).sort()).toEqual([...OPS].sort());
    for (const [op, s] of Object.entries(report.ops)) expect(s.bad, `${op} bad`).toBe(0);
    expect(report.load.started).toBe(90);
    expect(report.stream.completed).toBe(report.stream.count);
    expect(report.stream.tokenCountMismatches).toBe(0);
    expect(report.thresholds.map((t) => t.passed)).toEqual([true, true]);
    expect(r.outcome.passed).toBe(true);
    expect(JSON.stringify(report)).not.toContain(TEST_TOKEN);
  });

  it('measures an injected 503 ratio as the availability, within sampling error', async () => {
    const r = await runAgainstService(
      {
        name: 'errors',
        tier: 'pro',
        load: { executor: 'constant-arrival-rate', rate: '400/s', duration: '1s' },
        mix: [{ op: 'listFlows', weight: 1 }],
        thresholds: { availability: '>=99.9%' },
      },
      { service: { faults: { errors: { listFlows: { rate: 0.2, status: 503 } } } } },
    );
    cleanups.push(r.close);
    const { report } = r.outcome;
    const n = report.slo.good + report.slo.bad;
    expect(n).toBe(400);
    // 4 standard deviations of a binomial proportion at p = 0.2, n = 400: ±0.08.
    expect(report.slo.availability).toBeGreaterThan(0.8 - 0.08);
    expect(report.slo.availability).toBeLessThan(0.8 + 0.08);
    expect(report.ops.listFlows?.errors.SERVICE_UNAVAILABLE).toBe(report.slo.bad);
    expect(report.ops.listFlows?.statuses['503']).toBe(report.slo.bad);
    expect(r.outcome.passed).toBe(false);
    expect(report.thresholds[0]).toMatchObject({ metric: 'availability', passed: false });
  });

  it('shows a stall in the percentiles of every request queued behind it (no coordinated omission)', async () => {
    let service: ReferenceService | undefined;
    let armed = false;
    const r = await runAgainstService(
      {
        name: 'stall',
        tier: 'pro',
        load: { executor: 'constant-arrival-rate', rate: '100/s', duration: '2s', maxInFlight: 1000 },
        mix: [{ op: 'listFlows', weight: 1 }],
      },
      {
        // One connection: while the server holds one request, every later one waits in line,
        // which is exactly what a closed-loop tool would fail to count.
        connections: 1,
        service: {
          // Called as a response goes out. The first to go out after arming is the delayed one
          // (nothing else reaches the server while it is held), so exactly one request is
          // slowed, however late the arming timer fires.
          onRequest: () => {
            if (!armed) return;
            armed = false;
            service?.faults.clear();
          },
        },
        during: (s) => {
          service = s;
          setTimeout(() => {
            s.faults.set({ latencyMs: { listFlows: 800 } });
            armed = true;
          }, 500);
        },
      },
    );
    cleanups.push(r.close);
    expect(r.service.stats().faults.delayed).toBe(1);
    const lat = r.outcome.report.ops.listFlows?.latencyMs;
    expect(lat).toBeDefined();
    // One request was slow at the server, yet the ~80 scheduled during its 800 ms all show it.
    expect(lat?.p90).toBeGreaterThan(300);
    expect(lat?.max).toBeGreaterThan(700);
    expect(lat?.p50).toBeLessThan(lat?.p90 ?? 0);
    expect(r.outcome.report.load.dropped).toBe(0);
  });

  it('at 120 % of the tier reports the advertised limit, expected 429s and no premature ones', async () => {
    const r = await runAgainstService(
      {
        name: 'over',
        tier: { limitPerMinute: 600 },
        load: { executor: 'constant-arrival-rate', rate: '120%', duration: '3s' },
        mix: [{ op: 'listFlows', weight: 1 }],
        thresholds: { 'ratelimit.premature429': '==0' },
      },
      { limitPerMinute: 600, service: { rateLimit: { windowMs: 1000 } } },
    );
    cleanups.push(r.close);
    const rl = r.outcome.report.rateLimit;
    // 600/min in 1 s windows: 10 per window; 12/s offered.
    expect(rl.advertisedLimit).toBe(10);
    expect(rl.responses429).toBeGreaterThan(0);
    expect(rl.expected429).toBe(rl.responses429);
    expect(rl.premature429).toBe(0);
    expect(rl.resetSemantics).toBe('delta-seconds');
    expect(r.outcome.report.slo.excluded).toBe(rl.expected429);
    expect(r.outcome.report.slo.bad).toBe(0);
    expect(r.outcome.passed).toBe(true);
  });

  it('reports premature 429s when the service throttles below its advertised limit', async () => {
    const r = await runAgainstService(
      {
        name: 'premature',
        tier: { limitPerMinute: 6000 },
        load: { executor: 'constant-arrival-rate', rate: '50%', duration: '1s' },
        mix: [{ op: 'listFlows', weight: 1 }],
        thresholds: { 'ratelimit.premature429': '==0' },
      },
      { limitPerMinute: 6000, service: { rateLimit: { windowMs: 1000 }, faults: { premature429: { rate: 0.2 } } } },
    );
    cleanups.push(r.close);
    const rl = r.outcome.report.rateLimit;
    expect(rl.premature429).toBeGreaterThan(0);
    expect(rl.premature429).toBe(rl.responses429);
    expect(r.outcome.report.slo.bad).toBe(rl.premature429);
    expect(r.outcome.passed).toBe(false);
  });

  it('stops on the stop signal, drains, and marks the report interrupted', async () => {
    const stop = new AbortController();
    setTimeout(() => stop.abort(), 300);
    const r = await runAgainstService(
      {
        name: 'interrupted',
        tier: 'pro',
        load: { executor: 'constant-arrival-rate', rate: '50/s', duration: '30s' },
        mix: [{ op: 'listFlows', weight: 1 }],
      },
      { run: { stopSignal: stop.signal } },
    );
    cleanups.push(r.close);
    const { report } = r.outcome;
    expect(report.interrupted).toBe(true);
    expect(report.load.started).toBeGreaterThan(0);
    // Stopped long before the 30 s schedule (1,500 starts) ran out.
    expect(report.load.started).toBeLessThan(500);
    expect(report.ops.listFlows?.count).toBe(report.load.started);
  });
});

describe('executeRun before the first request', () => {
  it('gives up preparation at once on the stop signal, instead of waiting out a hanging target', async () => {
    const stop = new AbortController();
    const started = runAgainstService(
      { name: 'hang', tier: 'pro', load: { executor: 'constant-arrival-rate', rate: '10/s', duration: '1s' }, mix: [{ op: 'listFlows', weight: 1 }] },
      // The listing that preparation sends hangs for a minute.
      { service: { faults: { latencyMs: { listFlows: '60s' } } }, run: { stopSignal: stop.signal } },
    );
    setTimeout(() => stop.abort(), 100);
    await expect(started).rejects.toMatchObject({ code: 'FG_INTERRUPTED' });
  });
});
