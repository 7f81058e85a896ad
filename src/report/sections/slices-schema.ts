/**
 * report@1 `slices` and `sliceMs`: the zod schema. How the section is projected and merged is in
 * `slices.ts`; the whole report's schema is put together in `../report-schema.ts`.
 */
import { z } from 'zod';
import { byOp, count, hdr, nonNegative, obj } from './schema-kit.js';

/** report@1 `slices[]`. */
export const sliceSchema = obj({
  /** Start of the slice in seconds since the run's start. */
  t: nonNegative,
  /** Requests intended to start in the slice (and observed so far). */
  requests: count,
  good: count,
  bad: count,
  excluded: count,
  responses429: count,
  /**
   * Per operation: count (every request, 429s included) and serialised latency histogram (µs,
   * HdrHistogram compressed base64) of the served answers: every one but a 429.
   */
  ops: byOp(obj({ count, latency: hdr })),
});

/** report@1 `sliceMs`. */
export const sliceMsSchema = z.number().gt(0);
