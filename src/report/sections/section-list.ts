/**
 * Every section of report@1 and the module that says how it merges: `mergeReports` loops over
 * this list. Adding a section to the report is one module in `sections/` (its zod piece and its
 * merge) and one line here; the type makes the line required, so a section the merge does not
 * know cannot compile.
 */
import type { Report } from '../model.js';
import { asyncRunsMerge } from './async-runs.js';
import { auditMerge } from './audit.js';
import { checksMerge } from './checks.js';
import { violationsSection, violationTotalsSection } from './contract-violations.js';
import { histogramsSection } from './histograms.js';
import { iterationsMerge } from './iterations.js';
import { loadMerge } from './load.js';
import { bySection, type Sections } from './merge-kit.js';
import { notificationsMerge } from './notifications.js';
import { opsMerge } from './ops.js';
import { rateLimitMerge } from './rate-limit.js';
import { runSections } from './run.js';
import { scenariosSection } from './scenarios.js';
import { sliceMsSection, slicesSection } from './slices.js';
import { sloMerge } from './slo.js';
import { stepsMerge } from './steps.js';
import { streamMerge } from './stream.js';
import { passedSection, thresholdsSection, verdictSection } from './thresholds.js';
import { warningsSection } from './warnings.js';

/** Every section of report@1, and how it merges (in the order of the merged report's fields). */
export const REPORT_SECTIONS: Sections<Report> = {
  schema: runSections.schema,
  scenario: runSections.scenario,
  interrupted: runSections.interrupted,
  target: runSections.target,
  startedAt: runSections.startedAt,
  endedAt: runSections.endedAt,
  durationS: runSections.durationS,
  load: bySection(loadMerge),
  ops: bySection(opsMerge),
  stream: bySection(streamMerge),
  rateLimit: bySection(rateLimitMerge),
  slo: bySection(sloMerge),
  thresholds: thresholdsSection,
  passed: passedSection,
  abortedBy: runSections.abortedBy,
  verdict: verdictSection,
  contractViolations: violationsSection,
  contractViolationTotals: violationTotalsSection,
  sliceMs: sliceMsSection,
  slices: slicesSection,
  histograms: histogramsSection,
  notifications: bySection(notificationsMerge),
  asyncRuns: bySection(asyncRunsMerge),
  audit: bySection(auditMerge),
  iterations: bySection(iterationsMerge),
  checks: bySection(checksMerge),
  steps: bySection(stepsMerge),
  scenarios: scenariosSection,
  warnings: warningsSection,
};
