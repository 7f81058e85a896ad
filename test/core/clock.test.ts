import { describe, expect, it } from 'vitest';
import { createFakeClock, createSystemClock, NS_PER_MS, type TimerHost } from '../../src/core/clock.js';

describe('createFakeClock', () => {
  it('fires timers in time order, with nowNs at each timer instant', () => {
    const clock = createFakeClock({ startNs: 100 });
    const fired: [string, number][] = [];
    clock.setTimer(300, () => fired.push(['c', clock.nowNs()]));
    clock.setTimer(200, () => fired.push(['b', clock.nowNs()]));
    clock.setTimer(150, () => fired.push(['a', clock.nowNs()]));
    clock.advance(150);
    expect(fired).toEqual([
      ['a', 150],
      ['b', 200],
    ]);
    expect(clock.nowNs()).toBe(250);
    clock.advanceTo(1000);
    expect(fired.map(([n]) => n)).toEqual(['a', 'b', 'c']);
    expect(clock.nowNs()).toBe(1000);
  });

  it('fires timers at the same instant in the order they were set', () => {
    const clock = createFakeClock();
    const order: number[] = [];
    for (let i = 0; i < 5; i++) clock.setTimer(10, () => order.push(i));
    clock.advance(10);
    expect(order).toEqual([0, 1, 2, 3, 4]);
  });

  it('fires a timer set from a timer when it falls within the same advance', () => {
    const clock = createFakeClock();
    const seen: number[] = [];
    clock.setTimer(10, () => {
      seen.push(clock.nowNs());
      clock.setTimer(20, () => seen.push(clock.nowNs()));
      clock.setTimer(500, () => seen.push(clock.nowNs()));
    });
    clock.advance(100);
    expect(seen).toEqual([10, 20]);
    expect(clock.pending()).toBe(1);
  });

  it('fires a timer set for the past at the next advance, without moving time back', () => {
    const clock = createFakeClock({ startNs: 1000 });
    let at = -1;
    clock.setTimer(500, () => (at = clock.nowNs()));
    expect(at).toBe(-1);
    clock.advance(0);
    expect(at).toBe(1000);
  });

  it('ignores cancelled timers and never goes backwards', () => {
    const clock = createFakeClock();
    let fired = 0;
    const h = clock.setTimer(5, () => fired++);
    clock.setTimer(6, () => fired++);
    clock.clearTimer(h);
    expect(clock.pending()).toBe(1);
    clock.advance(10);
    expect(fired).toBe(1);
    clock.advanceTo(3);
    expect(clock.nowNs()).toBe(10);
    clock.clearTimer(h);
  });

  it('runs until idle, or up to a limit', () => {
    const clock = createFakeClock();
    const seen: number[] = [];
    for (const t of [30, 10, 20]) clock.setTimer(t, () => seen.push(t));
    expect(clock.runUntilIdle(20)).toBe(2);
    expect(seen).toEqual([10, 20]);
    expect(clock.runUntilIdle()).toBe(1);
    expect(clock.nowNs()).toBe(30);
    expect(clock.pending()).toBe(0);
  });

  it('derives wall time from monotonic time', () => {
    const clock = createFakeClock({ wallStartMs: 1_000_000 });
    clock.advance(1500 * NS_PER_MS);
    expect(clock.wallMs()).toBe(1_001_500);
  });
});

describe('createSystemClock', () => {
  it('is monotonic and runs a timer due now, cancelling works', async () => {
    const clock = createSystemClock();
    const a = clock.nowNs();
    const b = clock.nowNs();
    expect(b).toBeGreaterThanOrEqual(a);
    expect(Math.abs(clock.wallMs() - Date.now())).toBeLessThan(1000);
    const order: string[] = [];
    const cancelled = clock.setTimer(clock.nowNs(), () => order.push('cancelled'));
    clock.clearTimer(cancelled);
    await new Promise<void>((resolve) => clock.setTimer(clock.nowNs(), () => resolve(order.push('ran') as unknown as void)));
    const later = clock.setTimer(clock.nowNs() + 50 * NS_PER_MS, () => order.push('later'));
    clock.clearTimer(later);
    expect(order).toEqual(['ran']);
  });
});

/** Timer primitives that only record what they were asked for; time stands still at `nowMs`. */
function recordingHost(nowMs: number): TimerHost & { calls: string[] } {
  const calls: string[] = [];
  let n = 0;
  return {
    calls,
    now: () => nowMs,
    timeOrigin: 1_000_000,
    setTimeout: (_fn, ms) => (calls.push(`timeout ${ms}`), `t${n++}`),
    clearTimeout: (h) => calls.push(`clearTimeout ${String(h)}`),
    setImmediate: () => (calls.push('immediate'), `i${n++}`),
    clearImmediate: (h) => calls.push(`clearImmediate ${String(h)}`),
  };
}

describe('createSystemClock waits', () => {
  it('sleeps in a timeout for an instant less than a millisecond ahead, never spinning on setImmediate', () => {
    const host = recordingHost(500);
    const clock = createSystemClock(host);
    clock.setTimer(500.2 * NS_PER_MS, () => undefined);
    clock.setTimer(500.9 * NS_PER_MS, () => undefined);
    expect(host.calls).toEqual(['timeout 1', 'timeout 1']);
  });

  it('rounds a later instant up to whole milliseconds, so a wake is rarely early', () => {
    const host = recordingHost(500);
    const clock = createSystemClock(host);
    clock.setTimer(502.2 * NS_PER_MS, () => undefined);
    clock.setTimer(510 * NS_PER_MS, () => undefined);
    expect(host.calls).toEqual(['timeout 3', 'timeout 10']);
  });

  it('runs a timer already due on setImmediate, and cancels each kind with its own call', () => {
    const host = recordingHost(500);
    const clock = createSystemClock(host);
    const due = clock.setTimer(500 * NS_PER_MS, () => undefined);
    const past = clock.setTimer(100 * NS_PER_MS, () => undefined);
    const later = clock.setTimer(505 * NS_PER_MS, () => undefined);
    clock.clearTimer(due);
    clock.clearTimer(later);
    expect(host.calls).toEqual(['immediate', 'immediate', 'timeout 5', 'clearImmediate i0', 'clearTimeout t2']);
    clock.clearTimer(past);
    expect(clock.nowNs()).toBe(500 * NS_PER_MS);
    expect(clock.wallMs()).toBe(1_000_500);
  });
});
