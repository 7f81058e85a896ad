/**
 * One arrival stamp per pass of the event loop over ready sockets.
 *
 * When the loop wakes, every socket it then reads had its bytes waiting at the moment it woke;
 * reading them takes turns, and a stamp taken as each read's turn comes would charge a chunk
 * with the time spent handling the chunks read before it (at 200 streams, a late first token
 * was mostly that: a millisecond of its neighbours' decoding). So the first read of a pass takes
 * the stamp and the rest of that pass share it; the pass ends at the loop's check phase
 * (`setImmediate`), which follows the I/O phase.
 *
 * But a pass over thousands of sockets polls more than once (libuv takes ready sockets 1,024 at
 * a time), so bytes read late in a long pass may have arrived after its first stamp: shared
 * blindly, they were stamped before the server sent them (at 10,000 streams the median first
 * token came out 55 ms early). So a stamp is shared only while the clock has moved less than
 * `MAX_SHARE_NS` since it was taken; after that each read is stamped when it is handled, late
 * rather than early: a client cannot know when such bytes came.
 */
import type { Clock } from '../core/clock.js';

/** How long a pass's first stamp may stand for later reads: at most this early for any of them. */
export const MAX_SHARE_NS = 1_000_000;

/** Returns the arrival time for a read happening now, on `clock`. */
export type ArrivalStamper = (clock: Clock) => number;

/** A stamper for one transport. */
export function createArrivalStamper(): ArrivalStamper {
  let stampNs = 0;
  let stampClock: Clock | undefined;
  const endPass = (): void => {
    stampClock = undefined;
  };
  return (clock) => {
    const now = clock.nowNs();
    if (stampClock === clock && now - stampNs <= MAX_SHARE_NS) return stampNs;
    // A different clock (another client in the same pass) gets its own reading.
    if (stampClock === undefined) setImmediate(endPass);
    stampClock = clock;
    stampNs = now;
    return stampNs;
  };
}
