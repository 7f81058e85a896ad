import { describe, expect, it } from 'vitest';
import { createFakeClock, NS_PER_MS } from '../../src/core/clock.js';
import { InvalidArgumentError } from '../../src/core/errors.js';
import { createProbeScheduler } from '../../src/probe/index.js';

const I = 30_000; // ms
const INS = I * NS_PER_MS;

/** Lets promise callbacks (the end of a round) run. */
const settle = () => new Promise<void>((r) => setImmediate(r));

describe('probe scheduler', () => {
  it('fires rounds at exact multiples of the interval, the first at once', async () => {
    const clock = createFakeClock({ startNs: 5 });
    const fires: { tick: number; intendedNs: number; nowNs: number }[] = [];
    const s = createProbeScheduler({
      clock,
      intervalMs: I,
      job: async (tick, intendedNs) => void fires.push({ tick, intendedNs, nowNs: clock.nowNs() }),
    });
    s.start();
    for (let i = 0; i < 5; i++) {
      await settle();
      clock.advance(INS);
    }
    await s.whenIdle();
    expect(fires.map((f) => f.tick)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(fires.map((f) => f.nowNs)).toEqual([0, 1, 2, 3, 4, 5].map((k) => 5 + k * INS));
    expect(fires.every((f) => f.intendedNs === f.nowNs)).toBe(true);
    expect(s.skipped).toBe(0);
    await s.stop();
    expect(clock.pending()).toBe(0);
  });

  it('skips the ticks a slow round covers instead of bursting afterwards', async () => {
    const clock = createFakeClock();
    const starts: number[] = [];
    let release: (() => void) | undefined;
    const s = createProbeScheduler({
      clock,
      intervalMs: I,
      job: (tick) => {
        starts.push(clock.nowNs());
        // Round 0 hangs until released; later rounds are instant.
        return tick === 0 ? new Promise<void>((r) => (release = r)) : Promise.resolve();
      },
    });
    s.start();
    clock.advance(2.5 * INS); // ticks at 1I and 2I find round 0 still running
    expect(starts).toEqual([0]);
    expect(s.skipped).toBe(2);
    release?.();
    await settle();
    // Nothing runs between the release and the next grid point: no catch-up burst.
    expect(starts).toEqual([0]);
    clock.advance(0.5 * INS);
    await settle();
    clock.advance(INS);
    await s.whenIdle();
    expect(starts).toEqual([0, 3 * INS, 4 * INS]);
    expect(s.fired).toBe(3);
    await s.stop();
  });

  it('a timer that fires late (the machine slept) runs one round on the grid and skips the rest', async () => {
    const fake = createFakeClock();
    let lateNs = 0;
    const clock = { ...fake, setTimer: (atNs: number, fn: () => void) => fake.setTimer(atNs + lateNs, fn) };
    const starts: { tick: number; intendedNs: number; nowNs: number }[] = [];
    const s = createProbeScheduler({ clock, intervalMs: I, job: async (tick, intendedNs) => void starts.push({ tick, intendedNs, nowNs: fake.nowNs() }) });
    lateNs = 2.5 * INS; // the timer of tick 1 fires at 3.5 I
    s.start();
    lateNs = 0;
    await settle();
    fake.advance(3.5 * INS);
    await settle();
    fake.advance(0.5 * INS);
    await s.whenIdle();
    expect(starts.map((x) => [x.tick, x.intendedNs / INS, x.nowNs / INS])).toEqual([
      [0, 0, 0],
      [3, 3, 3.5],
      [4, 4, 4],
    ]);
    expect(s.skipped).toBe(2);
    await s.stop();
  });

  it('stop waits for the round in flight and schedules nothing more', async () => {
    const clock = createFakeClock();
    let finished = false;
    let release: (() => void) | undefined;
    const s = createProbeScheduler({
      clock,
      intervalMs: I,
      job: () =>
        new Promise<void>((r) => {
          release = () => {
            finished = true;
            r();
          };
        }),
    });
    s.start();
    const stopping = s.stop();
    let stopped = false;
    void stopping.then(() => (stopped = true));
    await settle();
    expect(stopped).toBe(false);
    release?.();
    await stopping;
    expect(finished).toBe(true);
    clock.advance(10 * INS);
    expect(s.fired).toBe(1);
  });

  it('refuses a non-positive interval', () => {
    expect(() => createProbeScheduler({ clock: createFakeClock(), intervalMs: 0, job: async () => undefined })).toThrow(InvalidArgumentError);
  });
});
