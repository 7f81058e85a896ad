/**
 * Building report@1 from a run's state: the collectors' snapshot, the executors' counts and
 * journey accounting, projected into the contract's sections. Each section's projection lives in
 * its module in `sections/` with its schema, type and merge; this file loops over the section
 * list. Pure: wall-clock times come in as arguments.
 */
import type { IterationStatsSnapshot } from '../collect/iteration-stats.js';
import type { CollectorSnapshot } from '../collect/collectors.js';
import type { Report, ScenarioReport } from './model.js';
import { projectSections, type BuildReportInput } from './sections/project-kit.js';
import { SCENARIO_SECTIONS } from './sections/scenarios.js';
import { REPORT_SECTIONS } from './sections/section-list.js';
import { round3 } from './sections/merge-kit.js';

export type { BuildReportInput } from './sections/project-kit.js';
export { redactUrl } from '../api/redact.js';
export { sloOf as sloSection } from './sections/slo.js';

/** One scenario's section of a run of several. */
export function buildScenarioSection(input: {
  readonly load: BuildReportInput['load'];
  readonly durationS: number;
  readonly snapshot: CollectorSnapshot;
  readonly iterations: IterationStatsSnapshot | undefined;
  readonly objective: number;
}): ScenarioReport {
  return projectSections(SCENARIO_SECTIONS, input);
}

/** Builds the report from a collector snapshot and what the run knows. */
export function buildReport(input: BuildReportInput): Report {
  const durationS = round3(Math.max(0, input.endedAtMs - input.startedAtMs) / 1000);
  return projectSections(REPORT_SECTIONS, {
    input,
    load: input.load,
    durationS,
    snapshot: input.snapshot,
    iterations: input.iterations,
    objective: input.objective ?? input.snapshot.objective,
  });
}
