/**
 * report@1 the run's own fields (`schema`, `scenario`, `target`, times): the zod schema. How the
 * section is projected and merged is in `run.ts`; the whole report's schema is put together in
 * `../report-schema.ts`.
 */
import { z } from 'zod';
import { bool, nonNegative, obj, str, timestamp } from './schema-kit.js';

/** The schema identifier of this version. */
export const REPORT_SCHEMA = 'flowgauge/report@1';

/** report@1's own fields, as zod shapes (composed in report-schema.ts). */
export const runSchema = {
  schema: z.literal(REPORT_SCHEMA),
  scenario: str,
  /** True when the run was stopped early (signal, fatal error) and the report covers part of it. */
  interrupted: bool,
  /** The target; its URL never carries credentials or a query string. */
  target: obj({ baseUrl: str, embedded: bool }),
  /** ISO 8601 UTC timestamps. */
  startedAt: timestamp,
  endedAt: timestamp,
  durationS: nonNegative,
} as const;
