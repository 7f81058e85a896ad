import { setImmediate as nextPass } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { createArrivalStamper, MAX_SHARE_NS } from '../../src/transport/arrival-stamp.js';
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

  it('stops sharing the stamp once the pass has run longer than MAX_SHARE_NS: late, never early', () => {
    const clock = createFakeClock({ startNs: 1_000 });
    const stamp = createArrivalStamper();
    const first = stamp(clock);
    clock.advance(MAX_SHARE_NS);
    expect(stamp(clock)).toBe(first);
    clock.advance(1);
    // Bytes read now may have come after the first stamp: they get their own.
    const late = stamp(clock);
    expect(late).toBe(first + MAX_SHARE_NS + 1);
    clock.advance(10_000);
    expect(stamp(clock)).toBe(late);
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
