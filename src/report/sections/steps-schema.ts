/**
 * report@1 `steps`: the zod schema. How the section is projected and merged is in `steps.ts`; the
 * whole report's schema is put together in `../report-schema.ts`.
 */
import { z } from 'zod';
import { pct } from './schema-kit.js';

/** report@1 `steps`. */
export const stepsSchema = z.record(z.string(), pct);
