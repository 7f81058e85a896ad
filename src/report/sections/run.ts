/**
 * The run's own fields: what it was, where it went, when. The scenario must be the same in every
 * shard (else an error); the span is from the first start to the last end; the run counts as
 * interrupted when one shard was, as aborted by the first shard's threshold that aborted it.
 */
import { redactUrl } from '../../api/redact.js';
import type { Report } from '../model.js';
import { allOf, anyOf, bySection, custom, fields, first, round3, setting, type Section } from './merge-kit.js';
import type { FullSection, RunState } from './project-kit.js';
import { REPORT_SCHEMA } from './run-schema.js';
import { runViews } from './run-views.js';

const iso = (ms: number): string => new Date(ms).toISOString();

type RunField = 'schema' | 'scenario' | 'interrupted' | 'target' | 'startedAt' | 'endedAt' | 'durationS' | 'abortedBy';

/** How each of the run's own fields is projected from what the run knows. */
const project: { readonly [K in RunField]-?: (s: RunState) => Report[K] } = {
  schema: () => REPORT_SCHEMA,
  scenario: (s) => s.input.scenario,
  interrupted: (s) => s.input.interrupted,
  target: (s) => ({ baseUrl: redactUrl(s.input.target.baseUrl), embedded: s.input.target.embedded }),
  startedAt: (s) => iso(s.input.startedAtMs),
  endedAt: (s) => iso(s.input.endedAtMs),
  durationS: (s) => s.durationS,
  abortedBy: (s) => s.input.abortedBy,
};

/** How each of the run's own fields merges. */
const merge: { readonly [K in RunField]-?: Section<Exclude<Report[K], undefined>, Report> } = {
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

/** The run's own fields: how each is projected and how it merges. */
export const runSections = Object.fromEntries(
  (Object.keys(merge) as RunField[]).map((k) => [k, { ...merge[k], project: project[k], ...(k === 'scenario' ? { views: runViews } : {}) }]),
) as { readonly [K in RunField]-?: FullSection<Exclude<Report[K], undefined>, Report, RunState> };
