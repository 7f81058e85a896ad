/**
 * Every section of report@1 and the module that says how it is projected from the run's state,
 * how it merges and how it shows itself: `buildReport`, `mergeReports` and the three writers
 * (console summary, report.md, report.html) loop over this list. Adding a section to the report
 * is its schema (`sections/<name>-schema.ts`: the zod piece and the type taken from it) with one
 * line in `report-schema.ts`, and its logic (`sections/<name>.ts`: projection, merge, and its
 * views from `sections/<name>-views.ts`) with one line here. The two are apart because the logic
 * is typed by the whole report, which is typed by every schema; the type of this list makes its
 * line required, so a section the list does not know cannot compile.
 */
import type { Report } from '../model.js';
import { asyncRunsSection } from './async-runs.js';
import { auditSection } from './audit.js';
import { checksSection } from './checks.js';
import { violationsSection, violationTotalsSection } from './contract-violations.js';
import { histogramsSection } from './histograms.js';
import { iterationsSection } from './iterations.js';
import { loadSection } from './load.js';
import { notificationsSection } from './notifications.js';
import { opsSection } from './ops.js';
import type { FullSections, RunState } from './project-kit.js';
import { rateLimitSection } from './rate-limit.js';
import { runSections } from './run.js';
import { scenariosSection } from './scenarios.js';
import { shardSection, shardsSection } from './shards.js';
import { sliceMsSection, slicesSection } from './slices.js';
import { sloSection } from './slo.js';
import { stepsSection } from './steps.js';
import { streamSection } from './stream.js';
import { passedSection, thresholdsSection, verdictSection } from './thresholds.js';
import { warningsSection } from './warnings.js';
import type { SectionViews } from './view-kit.js';

/** Every section of report@1, how it is projected and how it merges (in the order of the report's fields). */
export const REPORT_SECTIONS: FullSections<Report, RunState> = {
  schema: runSections.schema,
  // Before every setting: reports of other runs or scenarios are named as such, not by the first field that differs.
  shard: shardSection,
  shards: shardsSection,
  scenario: runSections.scenario,
  interrupted: runSections.interrupted,
  target: runSections.target,
  startedAt: runSections.startedAt,
  endedAt: runSections.endedAt,
  durationS: runSections.durationS,
  load: loadSection,
  ops: opsSection,
  stream: streamSection,
  rateLimit: rateLimitSection,
  slo: sloSection,
  thresholds: thresholdsSection,
  passed: passedSection,
  abortedBy: runSections.abortedBy,
  verdict: verdictSection,
  contractViolations: violationsSection,
  contractViolationTotals: violationTotalsSection,
  sliceMs: sliceMsSection,
  slices: slicesSection,
  histograms: histogramsSection,
  notifications: notificationsSection,
  asyncRuns: asyncRunsSection,
  audit: auditSection,
  iterations: iterationsSection,
  checks: checksSection,
  steps: stepsSection,
  scenarios: scenariosSection,
  warnings: warningsSection,
};

/** Every section's views, in the list's order. */
const VIEWS: readonly SectionViews[] = Object.values(REPORT_SECTIONS).flatMap((s) => (s.views === undefined ? [] : [s.views]));

/** The views of every section at one place of a document (`view-kit.ts`), in the list's order. */
export function viewsAt<D extends keyof SectionViews, P extends keyof NonNullable<SectionViews[D]>>(doc: D, place: P): NonNullable<NonNullable<SectionViews[D]>[P]>[] {
  return VIEWS.flatMap((v) => {
    const view = (v[doc] as NonNullable<SectionViews[D]> | undefined)?.[place];
    return view === undefined ? [] : [view as NonNullable<NonNullable<SectionViews[D]>[P]>];
  });
}
