/**
 * What a section of report@1 is projected from, and the loop that projects a report (or one
 * scenario's section of it) section by section. Pure: wall-clock times come in as arguments.
 */
import type { CollectorSnapshot } from '../../collect/collectors.js';
import type { Pct } from '../../collect/histogram.js';
import type { IterationStatsSnapshot } from '../../collect/iteration-stats.js';
import type { ThresholdResult } from '../../slo/thresholds.js';
import type { RunWarning } from './warnings-schema.js';
import type { ShardReport } from './shards-schema.js';
import type { ScenarioReport } from './scenarios-schema.js';
import type { Section } from './merge-kit.js';
import type { SectionViews } from './view-kit.js';
import type { AsyncRunsReport } from './async-runs-schema.js';
import type { AuditReport } from './audit-schema.js';
import type { NotificationsReport } from './notifications-schema.js';

/** What `buildReport` needs. */
export interface BuildReportInput {
  readonly scenario: string;
  readonly interrupted: boolean;
  readonly target: { readonly baseUrl: string; readonly embedded: boolean };
  /** Wall-clock ms since the Unix epoch. */
  readonly startedAtMs: number;
  readonly endedAtMs: number;
  readonly load: {
    readonly executor: string;
    readonly targetRatePerS: number | null;
    readonly started: number;
    readonly dropped: number;
    readonly scheduleLagMs: Pct;
    /** The schedule's own length in s; without it the achieved rate is over the whole duration. */
    readonly scheduleS?: number;
    readonly cancelled?: number;
    /** Requests still open when the grace period ended, within their own deadline. */
    readonly cut?: number;
    /** The grace period that ended, in s (written with `cut`). */
    readonly gracefulStopS?: number;
    /** Arrivals due before the run joined its schedule (it started after `--start-at`), not sent. */
    readonly missed?: number;
    /** How far into its schedule the run joined it, in s (it started that long after `--start-at`). */
    readonly joinedAtS?: number;
  };
  readonly snapshot: CollectorSnapshot;
  /** Journey accounting; its sections appear only when journeys ran. */
  readonly iterations?: IterationStatsSnapshot | undefined;
  /** Sections of each scenario of a run of several. */
  readonly scenarios?: Readonly<Record<string, ScenarioReport>>;
  /**
   * The sections the run's phases learnt after the schedule (following, notification matching,
   * the audit), each projected by its phase from its own state; a section absent here is left out.
   */
  readonly phases?: PhaseSectionValues;
  readonly warnings?: readonly RunWarning[];
  readonly abortedBy?: string;
  /** Which shard of which run this is (a distributed run's shard). */
  readonly shard?: ShardReport;
  /** Results to embed; evaluate them against this report with `evaluateReportThresholds`. */
  readonly thresholds: readonly ThresholdResult[];
  /** Defaults to the snapshot's objective. */
  readonly objective?: number;
}

/** The report sections a run's phases own, as each phase projected it. */
export interface PhaseSectionValues {
  readonly notifications?: NotificationsReport;
  readonly asyncRuns?: AsyncRunsReport;
  readonly audit?: AuditReport;
}

/** The state of one scope (the run's total, or one scenario's) that its sections are projected from. */
export interface ScopeState {
  readonly load: BuildReportInput['load'];
  /** The scope's duration in s, rounded as the report writes it. */
  readonly durationS: number;
  readonly snapshot: CollectorSnapshot;
  readonly iterations: IterationStatsSnapshot | undefined;
  readonly objective: number;
}

/** The run's state: its total's, and what only the whole run has (what it was, when, its thresholds). */
export interface RunState extends ScopeState {
  readonly input: BuildReportInput;
}

/** How one section is projected from a scope's state; undefined leaves it out. */
export interface Projected<V, P> {
  project(state: P): V | undefined;
}

/** A section's merge and its projection, and how it shows itself (`view-kit.ts`), if it does. */
export type FullSection<V, S, P> = Section<V, S> & Projected<V, P> & { readonly views?: SectionViews };

/**
 * Every field of `S` with its merge and its projection from `P`: a section added to the model
 * does not compile until it has both.
 */
export type FullSections<S, P> = { readonly [K in keyof S & string]-?: FullSection<Exclude<S[K], undefined>, S, P> };

/** Projects a scope section by section, in the list's order; a section left undefined is left out. */
export function projectSections<S extends object, P>(sections: FullSections<S, P>, state: P): S {
  const out: Record<string, unknown> = {};
  for (const [key, section] of Object.entries(sections) as [string, Projected<unknown, P>][]) {
    const v = section.project(state);
    if (v !== undefined) out[key] = v;
  }
  return out as S;
}

/**
 * A section a phase of the run owns (`run/phases/`): the phase projects it from its own state
 * after the schedule, and the report takes it in its place among the others.
 */
export const fromPhase = <K extends keyof PhaseSectionValues, S>(key: K, section: Section<NonNullable<PhaseSectionValues[K]>, S>): FullSection<NonNullable<PhaseSectionValues[K]>, S, RunState> => ({
  ...section,
  project: (state) => state.input.phases?.[key] as NonNullable<PhaseSectionValues[K]> | undefined,
});
