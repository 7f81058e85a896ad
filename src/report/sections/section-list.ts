/**
 * Every section of report@1 and the module that says how it is projected from the run's state
 * and how it merges: `buildReport` and `mergeReports` loop over this list. Adding a section to
 * the report is its schema (`sections/<name>-schema.ts`: the zod piece and the type taken from
 * it) with one line in `report-schema.ts`, and its logic (`sections/<name>.ts`: projection and
 * merge) with one line here. The two are apart because the logic is typed by the whole report,
 * which is typed by every schema; the type of this list makes its line required, so a section
 * the list does not know cannot compile.
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
