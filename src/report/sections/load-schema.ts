/**
 * report@1 `load`: the zod schema, and the types taken from it (`z.output`, readonly at every
 * depth). How the section is projected and merged is in `load.ts`; the whole report's schema is
 * put together in `../report-schema.ts`.
 */
import { z } from 'zod';
import { count, nonNegative, nullable, obj, pct, str, type DeepReadonly } from './schema-kit.js';

/** report@1 `load`. */
export const loadSchema = obj(
  {
    executor: str,
    /** Requested arrival rate; null for closed-model executors, which have none. */
    targetRatePerS: nullable(nonNegative),
    /** started / durationS. */
    achievedRatePerS: nonNegative,
    started: count,
    /** Starts skipped because `maxInFlight` was reached (never silently delayed). */
    dropped: count,
    /** Actual start − intended start. */
    scheduleLagMs: pct,
  },
  {
    /**
     * Requests still in flight when the grace period of a stop ran out, aborted by flowgauge:
     * they say nothing about the service, so they are in no other count.
     */
    cancelled: count,
    /**
     * Added in @1: requests still open when the grace period after the schedule ended, within their
     * own deadline (one past it is a `TIMEOUT`): the run cut them, so they are in no other count.
     */
    cut: count,
    /** Added in @1, with `cut`: the grace period that ended, in s (absent when scenarios had different ones). */
    gracefulStopS: nonNegative,
    /**
     * Added in @1: the schedule's own length in s (from its start to its end, without the drain
     * that follows); `achievedRatePerS` is `started / scheduleS`.
     */
    scheduleS: nonNegative,
    /** Added in @1: worker threads that generated the load (`flowgauge run --workers N`); absent for one. */
    workers: z.int().min(1),
    /**
     * Added in @1: arrivals due before the run joined its schedule (it came up after `--start-at`
     * and joined in phase), not sent and in no other count; absent when none.
     */
    missed: count,
    /** Added in @1: how far into its schedule the run joined it, in s (how late after `--start-at`); absent when on time. */
    joinedAtS: nonNegative,
  },
);

/** `load`: what the executor was asked to do and did. */
export type LoadReport = DeepReadonly<z.output<typeof loadSchema>>;
