/**
 * report@1 `warnings`: the zod schema, and the types taken from it (`z.output`, readonly at every
 * depth). How the section is projected and merged is in `warnings.ts`; the whole report's schema
 * is put together in `../report-schema.ts`.
 */
import { z } from 'zod';
import { nonNegative, obj, str, type DeepReadonly } from './schema-kit.js';

/** report@1 `warnings`. */
export const warningsSchema = z.array(
  obj({
    /** Stable, e.g. `DATA_EXHAUSTED`, `DROPPED`, `SCHEDULE_BEHIND`. */
    code: str,
    /** What happened and what to change. */
    message: str,
  },
  {
    /** `EVENT_LOOP_LAG`'s figures: the generator's event-loop delay over the run, in ms. */
    eventLoopDelayMs: obj({ p99: nonNegative, max: nonNegative }),
  },
  ),
);

/** `warnings[]` (added in @1): the generator itself limited or distorted the load. */
export type RunWarning = DeepReadonly<z.output<typeof warningsSchema>>[number];
