/**
 * report@1 `ops`: the zod schema, and the types taken from it (`z.output`, readonly at every
 * depth). How the section is projected and merged is in `ops.ts`; the whole report's schema is put
 * together in `../report-schema.ts`.
 */
import type { z } from 'zod';
import { PHASES } from '../../collect/request-phases.js';
import { byOpOrHttp, count, countMap, keyed, obj, pct, type DeepReadonly } from './schema-kit.js';

const phasesSchema = obj(keyed(PHASES.map((p) => `${p}Ms` as const), pct));

/** report@1 `ops.<op>`. */
export const opSchema = obj(
  {
    count,
    good: count,
    bad: count,
    excluded: count,
    /** Responses by HTTP status code (requests with no response are only in `errors`). */
    statuses: countMap,
    /** Samples by `ErrorCode`. */
    errors: countMap,
    /** Latency of the served answers: every sample but a 429 (its `count` is `count` less the 429s). */
    latencyMs: pct,
  },
  {
    /** Where the time went, for requests that reached a connection (absent when none did). */
    phases: phasesSchema,
  },
);

/** `ops.<op>`: counts, statuses, errors and latency from the intended start. */
export type OpReport = DeepReadonly<z.output<typeof opSchema>>;

/** report@1 `ops`. */
export const opsSchema = byOpOrHttp(opSchema);
