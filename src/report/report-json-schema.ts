/**
 * The JSON Schema (draft-07) of `flowgauge/report@1`, generated from the zod schema the reader
 * validates with, so what `flowgauge schema report` prints and what `readReport` accepts cannot
 * part ways.
 */
import { z } from 'zod';
import { reportSchema } from './report-schema.js';

/**
 * Generates the JSON Schema of report.json, version 1, from `reportSchema`. `io: 'input'`
 * because the schema describes the file as written, before any parsing.
 */
export function reportJsonSchema(): Readonly<Record<string, unknown>> {
  const { $schema, ...rest } = z.toJSONSchema(reportSchema, { target: 'draft-7', io: 'input' });
  return {
    $schema,
    $id: 'https://flowgauge.dev/schemas/report-1.json',
    title: 'flowgauge report (flowgauge/report@1)',
    ...rest,
  };
}

/** The JSON Schema of report.json, version 1 (what `reportJsonSchema` generates). */
export const REPORT_JSON_SCHEMA: Readonly<Record<string, unknown>> = reportJsonSchema();
