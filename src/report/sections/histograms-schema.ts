/**
 * report@1 `histograms`: the zod schema. How the section is projected and merged is in
 * `histograms.ts`; the whole report's schema is put together in `../report-schema.ts`.
 */
import { z } from 'zod';
import { hdr } from './schema-kit.js';

/** report@1 `histograms` (and a scenario's). */
export const histogramsSchema = z.record(z.string(), hdr);
