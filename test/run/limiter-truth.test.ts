/**
 * Whole runs against the reference service's limiters, honest and lying, judged against the
 * service's own books (`stats()`): a refusal while the advertised limit was not used up is
 * premature, one after it expected. Windows of 5 s, so rolling limiters can be told apart.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ReferenceServiceOptions } from '../../src/target/index.js';
import { runAgainstService } from './helpers.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});

// 240/min in 5 s windows is 20 per window; 6/s offered is 150 %.
const LIMIT_PER_MINUTE = 240;

async function runWith(service: ReferenceServiceOptions, rate = '6/s') {
  const r = await runAgainstService(
    {
      name: 'limiter',
      tier: { limitPerMinute: LIMIT_PER_MINUTE },
      load: { executor: 'constant-arrival-rate', rate, duration: '8s' },
      mix: [{ op: 'listFlows', weight: 1 }],
    },
    { limitPerMinute: LIMIT_PER_MINUTE, service: { ...service, rateLimit: { windowMs: 5000, ...service.rateLimit } } },
  );
  cleanups.push(r.close);
  return { rl: r.outcome.report.rateLimit, stats: r.service.stats() };
}

describe('runs against limiters whose books are known', () => {
  for (const shape of ['fixed', 'sliding', 'token-bucket'] as const) {
    it(`an honest ${shape} limiter at 150 %: every 429 expected, none premature`, async () => {
      // A bucket refills as it goes: offer it more to see it refuse as often.
      const { rl, stats } = await runWith({ rateLimit: { windowMs: 5000, shape } }, shape === 'token-bucket' ? '10/s' : '6/s');
      expect(rl.responses429).toBe(stats.rateLimited);
      expect(rl.responses429).toBeGreaterThan(10);
      expect(rl.premature429).toBe(0);
      expect(rl.headerViolations).toEqual({});
      if (shape !== 'fixed') expect(rl.rolling).toBe(true);
    });
  }

  it('an honest token bucket with a burst: none premature', async () => {
    const { rl } = await runWith({ rateLimit: { windowMs: 5000, shape: 'token-bucket', burst: 10 } }, '12/s');
    expect(rl.responses429).toBeGreaterThan(0);
    expect(rl.premature429).toBe(0);
  });

  it('a fixed limiter that admits 12 of an advertised 20: its early refusals premature, the rest expected', async () => {
    const { rl, stats } = await runWith({ faults: { throttleAfter: 12 } });
    // The service's books: refusals before the advertised limit, and after it.
    expect(stats.faults.throttled429).toBeGreaterThan(10);
    expect(rl.premature429 + (rl.uncertain429 ?? 0)).toBe(stats.faults.throttled429);
    expect(rl.premature429).toBeGreaterThanOrEqual(stats.faults.throttled429 - 1);
    expect(rl.expected429).toBe(stats.rateLimited);
  });

  it('a sliding limiter that admits 12 of an advertised 20 is found too', async () => {
    const { rl, stats } = await runWith({ rateLimit: { windowMs: 5000, shape: 'sliding' }, faults: { throttleAfter: 12 } });
    expect(stats.faults.throttled429).toBeGreaterThan(0);
    expect(rl.premature429).toBeGreaterThan(0);
  });

  it('a Remaining that drifts 3 above the truth: premature 429s and a header finding', async () => {
    const { rl, stats } = await runWith({ faults: { remainingDrift: 3 } });
    expect(stats.faults.driftedRemaining).toBeGreaterThan(0);
    expect(rl.premature429).toBeGreaterThan(0);
    expect(rl.headerViolations['remaining-above-count']).toBeGreaterThan(0);
  });
});

describe('requests flowgauge sends besides the scenario', () => {
  it('the follower\'s polls spend the window too: an async run at the limit gets no premature 429', async () => {
    // 20 per 5 s; 2 runs a second, each answered `running` and polled every 200 ms until done
    // (~600 ms): the polls use most of the window, and the runs' 429s are the polls' doing.
    const r = await runAgainstService(
      {
        name: 'async-limit',
        tier: { limitPerMinute: LIMIT_PER_MINUTE },
        load: { executor: 'constant-arrival-rate', rate: '2/s', duration: '6s' },
        mix: [{ op: 'run', weight: 1 }],
      },
      {
        limitPerMinute: LIMIT_PER_MINUTE,
        service: { runMode: 'async', latency: { ttftMs: 100, itlMs: 50, jitter: 0, runOverheadMs: 0, tokens: { min: 10, max: 10 } }, rateLimit: { windowMs: 5000 } },
        run: { follow: { pollIntervalMs: 200 } },
      },
    );
    cleanups.push(r.close);
    const rl = r.outcome.report.rateLimit;
    expect(r.outcome.report.asyncRuns?.polls.total ?? 0).toBeGreaterThan(0);
    expect(rl.responses429).toBeGreaterThan(0);
    expect(rl.premature429).toBe(0);
  });
});
