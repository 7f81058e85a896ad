/**
 * One arrival stamp per pass of the event loop over ready sockets.
 *
 * When the loop wakes, every socket it then reads had its bytes waiting at the moment it woke;
 * reading them takes turns, and a stamp taken as each read's turn comes would charge a chunk
 * with the time spent handling the chunks read before it (at 200 streams, a late first token
 * was mostly that: a millisecond of its neighbours' decoding). So the first read of a pass takes
 * the stamp and the rest of that pass share it; the pass ends at the loop's check phase
 * (`setImmediate`), which follows the I/O phase.
 */
import type { Clock } from '../core/clock.js';

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
    if (stampClock === clock) return stampNs;
    // A different clock (another client in the same pass) gets its own reading.
    if (stampClock === undefined) setImmediate(endPass);
    stampClock = clock;
    stampNs = clock.nowNs();
    return stampNs;
  };
}
