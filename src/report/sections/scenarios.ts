/**
 * `scenarios`: a run of several scenarios keeps each one's sections, shaped as the top level's;
 * each scenario merges across the shards that ran it with the same section mergers, over its own
 * histograms, on the merged run's clock. Adding a section to a scenario's report is one line in
 * `SCENARIO_SECTIONS` (the type makes it required).
 */
import type { Report } from '../model.js';
import { checksSection } from './checks.js';
import { violationTotalsSection } from './contract-violations.js';
import { histogramsSection } from './histograms.js';
import { iterationsSection } from './iterations.js';
import { loadSection } from './load.js';
import { mergeSections, type Part, type Scope, type Source } from './merge-kit.js';
import { mergeHistogramMaps } from './merge-histograms.js';
import { opsSection } from './ops.js';
import type { FullSection, FullSections, RunState, ScopeState } from './project-kit.js';
import { rateLimitSection } from './rate-limit.js';
import { sloSection } from './slo.js';
import { stepsSection } from './steps.js';
import { streamSection } from './stream.js';
import type { ScenarioReport } from './scenarios-schema.js';
import { scenariosViews } from './scenarios-views.js';

/** Every section of a scenario's report, how it is projected and how it merges. */
export const SCENARIO_SECTIONS: FullSections<ScenarioReport, ScopeState> = {
  load: loadSection,
  ops: opsSection,
  stream: streamSection,
  rateLimit: rateLimitSection,
  slo: sloSection,
  contractViolationTotals: violationTotalsSection,
  iterations: iterationsSection,
  checks: checksSection,
  steps: stepsSection,
  histograms: histogramsSection,
};

/** `scenarios`, kind `each`: scenario by scenario, each like a report of its own. */
export const scenariosSection: FullSection<Readonly<Record<string, ScenarioReport>>, Pick<Report, 'scenarios'>, RunState> = {
  // Each scenario's sections are projected by `buildScenarioSection` (with SCENARIO_SECTIONS).
  project: (s) => s.input.scenarios,
  views: scenariosViews,
  merge(parts, scope) {
    const names = [...new Set(parts.flatMap((p) => Object.keys(p.value.scenarios ?? {})))];
    if (names.length === 0) return undefined;
    const out: Record<string, ScenarioReport> = {};
    for (const name of names) {
      const own: Part<ScenarioReport>[] = parts.flatMap((p) => {
        const section = p.value.scenarios?.[name];
        if (section === undefined) return [];
        const source: Source = { ...p.source, name: `${p.source.name} scenarios.${name}`, histograms: section.histograms ?? {} };
        return [{ value: section, source }];
      });
      const sources = own.map((p) => p.source);
      const inner: Scope = { startMs: scope.startMs, histograms: mergeHistogramMaps(sources), sources };
      out[name] = mergeSections(SCENARIO_SECTIONS, own, inner);
    }
    return out;
  },
};
