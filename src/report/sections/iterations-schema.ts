/**
 * report@1 `iterations`: the zod schema, and the types taken from it (`z.output`, readonly at
 * every depth). How the section is projected and merged is in `iterations.ts`; the whole report's
 * schema is put together in `../report-schema.ts`.
 */
import { z } from 'zod';
import { count, obj, pct, str, written, type DeepReadonly } from './schema-kit.js';

/** report@1 `iterations`. */
export const iterationsSchema = obj(
  {
    started: count,
    completed: count,
    failed: count,
    interrupted: count,
    /** Iterations the schedule could not start (`maxInFlight` reached). */
    dropped: count,
    durationMs: pct,
    /** The first distinct failure messages, most frequent first. */
    errors: z.array(obj({ message: str, count })),
  },
  {
    /** Failures whose message was not among the kept ones. */
    otherErrors: written(count),
  },
);

/** `iterations` (added in @1): journey iterations by outcome. */
export type IterationsReport = DeepReadonly<z.output<typeof iterationsSchema>>;
