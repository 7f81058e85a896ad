/**
 * Inference of what `X-RateLimit-Reset` means. The interface leaves its unit unsaid, so the
 * analyser decides from what it sees: Unix epoch seconds, or seconds until the window resets.
 */

/** What the Reset header was found to mean. */
export type ResetSemantics = 'delta-seconds' | 'epoch-seconds' | 'unknown';

/** Values above this are taken as Unix seconds (2001-09-09 onwards). */
export const EPOCH_SECONDS_MIN = 1e9;
/** Values from here on are Unix milliseconds, which is neither documented form: `unknown`. */
export const EPOCH_MS_MIN = 1e11;

/**
 * Accumulates evidence about Reset values. A delta must *count down with time*: between two
 * responses at least two seconds apart (by arrival) that would lie in one window were Reset a
 * delta, it drops by the time that passed, give or take a second of rounding; a constant value
 * does not. Pairs further apart may straddle a rollover and say nothing. Windows of a second or
 * two (short test windows) show no countdown at whole-second resolution: values of 1–2 that
 * nothing contradicts are read as deltas.
 */
export interface ResetSemanticsTracker {
  /** Feeds one parsed Reset value and the monotonic arrival time of its response. */
  observe(reset: number, arrivalNs: number): void;
  /** The verdict so far. */
  result(): ResetSemantics;
}

/** Creates an empty tracker. */
export function createResetSemanticsTracker(): ResetSemanticsTracker {
  let epochLike = 0;
  let small = 0;
  let other = 0;
  let countingDown = 0;
  let notCountingDown = 0;
  let maxSmall = 0;
  let last: { reset: number; arrivalNs: number } | undefined;

  return {
    observe(reset, arrivalNs) {
      if (reset >= EPOCH_MS_MIN || reset < 0) {
        other++;
        return;
      }
      if (reset > EPOCH_SECONDS_MIN) {
        epochLike++;
        return;
      }
      small++;
      if (reset > maxSmall) maxSmall = reset;
      if (last === undefined) {
        last = { reset, arrivalNs };
        return;
      }
      const dtS = (arrivalNs - last.arrivalNs) / 1e9;
      // Responses arriving out of order, or too close together to tell a countdown from rounding.
      if (dtS < 2) return;
      if (dtS < last.reset - 1.1) {
        if (Math.abs(last.reset - reset - dtS) <= 1.1) countingDown++;
        else notCountingDown++;
      }
      last = { reset, arrivalNs };
    },
    result() {
      if (epochLike > 0 && epochLike >= small + other) return 'epoch-seconds';
      const evidence = countingDown > 0 || (notCountingDown === 0 && maxSmall <= 2);
      if (small > 0 && small >= epochLike + other && evidence && countingDown >= notCountingDown) {
        return 'delta-seconds';
      }
      return 'unknown';
    },
  };
}
