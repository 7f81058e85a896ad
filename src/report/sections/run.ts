/**
 * The run's own fields: what it was, where it went, when. The scenario must be the same in every
 * shard (else an error); the span is from the first start to the last end; the run counts as
 * interrupted when one shard was, as aborted by the first shard's threshold that aborted it.
 */
import { z } from 'zod';
import { REPORT_SCHEMA, type Report } from '../model.js';
import { allOf, anyOf, bySection, custom, fields, first, round3, setting, type Section } from './merge-kit.js';
import { bool, nonNegative, obj, str, timestamp } from './schema-kit.js';

/** report@1's own fields, as zod shapes (composed in report-schema.ts). */
export const runSchema = {
  schema: z.literal(REPORT_SCHEMA),
  scenario: str,
  interrupted: bool,
  target: obj({ baseUrl: str, embedded: bool }),
  startedAt: timestamp,
  endedAt: timestamp,
  durationS: nonNegative,
} as const;

const iso = (ms: number): string => new Date(ms).toISOString();

/** How each of the run's own fields merges. */
export const runSections: { readonly [K in 'schema' | 'scenario' | 'interrupted' | 'target' | 'startedAt' | 'endedAt' | 'durationS' | 'abortedBy']-?: Section<Exclude<Report[K], undefined>, Report> } = {
  schema: bySection(setting({ label: 'the schema' })),
  scenario: bySection(setting({ label: 'the scenario' })),
  interrupted: bySection(anyOf),
  target: bySection(
    fields<Report['target']>({
      // Shards may reach one service by several addresses: each said once.
      baseUrl: custom('union', (parts) => [...new Set(parts.map((p) => p.value))].join(', ')),
      embedded: allOf,
    }),
  ),
  // The earliest start (the merged run's clock starts there) and the latest end.
  startedAt: { merge: (_parts, scope) => iso(scope.startMs) },
  endedAt: bySection(custom('max', (parts) => iso(Math.max(...parts.map((p) => Date.parse(p.value)))))),
  // Recomputed: first start to last end, each end from the shard's own durationS (startedAt and
  // endedAt are cut to the ms, so their difference can be a ms off it: one report merges back unchanged).
  durationS: { merge: (_parts, scope) => round3(Math.max(0, ...scope.sources.map((s) => s.startMs - scope.startMs + s.durationS * 1000)) / 1000) },
  // The earliest shard's abort-on-fail threshold.
  abortedBy: bySection(first<string>()),
};
