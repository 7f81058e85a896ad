import { setImmediate as nextPass } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { createArrivalStamper } from '../../src/api/arrival-stamp.js';
import { createFakeClock } from '../../src/core/clock.js';

describe('arrival stamps', () => {
  it('gives every read of one pass over ready sockets the stamp of the first', () => {
    const clock = createFakeClock({ startNs: 1_000 });
    const stamp = createArrivalStamper();
    const first = stamp(clock);
    clock.advance(5_000); // the first read's handling took 5 µs
    expect(stamp(clock)).toBe(first);
    expect(first).toBe(1_000);
  });

  it('takes a new stamp in the next pass', async () => {
    const clock = createFakeClock();
    const stamp = createArrivalStamper();
    const first = stamp(clock);
    clock.advance(20_000);
    await nextPass();
    expect(stamp(clock)).toBe(first + 20_000);
  });

  it('reads a second clock for itself', () => {
    const a = createFakeClock({ startNs: 10 });
    const b = createFakeClock({ startNs: 99 });
    const stamp = createArrivalStamper();
    expect(stamp(a)).toBe(10);
    expect(stamp(b)).toBe(99);
  });
});
