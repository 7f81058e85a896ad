/**
 * report@1 `asyncRuns`: the zod schema, and the types taken from it (`z.output`, readonly at every
 * depth). How the section is projected and merged is in `async-runs.ts`; the whole report's schema
 * is put together in `../report-schema.ts`.
 */
import type { z } from 'zod';
import { bool, count, countMap, keyed, nonNegative, nullable, num, obj, pct, written, type DeepReadonly } from './schema-kit.js';

const nullableNum = nullable(num);

/** report@1 `asyncRuns`. */
export const asyncRunsSchema = obj(
  {
    pollIntervalMs: nonNegative,
    /** Completion is observed up to one interval late; on average half of it. */
    meanBiasMs: nonNegative,
    followed: obj({ run: count, trigger: count }),
    final: obj(keyed(['completed', 'failed', 'timeout', 'abandoned', 'error'] as const, count)),
    /** Intended start of the request → the poll that saw the run finished (completed or failed). */
    timeToCompletionMs: pct,
    /** Polls per finished follow (completed or failed), exact. */
    pollsPerRun: obj({ runs: count, mean: nonNegative, max: count }),
    progress: obj(
      {
        /** Lowest and highest value seen; null before any. */
        min: nullableNum,
        max: nullableNum,
        /** True when no run's progress ever went down. */
        monotonic: bool,
        /** Polls whose progress was lower than the previous poll's, and the runs that had one. */
        decreases: count,
      },
      {
        /** Numeric progress values seen. */
        values: written(count),
        /** Range of the value at completion. */
        atCompletion: written(obj({ min: nullableNum, max: nullableNum })),
        outside0to100: written(count),
        nonInteger: written(count),
        /** Polls whose body had no numeric progress. */
        missing: written(count),
        runsWithDecrease: written(count),
      },
    ),
  },
  {
    notFollowed: written(obj({ cap: count, stopped: count })),
    /** Follows still going when the snapshot was taken. */
    active: written(count),
    polls: written(obj({ total: count, statuses: countMap, errors: countMap })),
    triggers: written(
      obj({
        completedByPolling: count,
        completedByNotification: count,
        /** Intended start of the trigger → its run's completion, by either route. */
        timeToCompletionMs: pct,
      }),
    ),
  },
);

/** `asyncRuns` (added in @1): runs that answered `running` and triggers, followed to their end. */
export type AsyncRunsReport = DeepReadonly<z.output<typeof asyncRunsSchema>>;
