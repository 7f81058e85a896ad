/**
 * `scenarios`: a run of several scenarios keeps each one's sections, shaped as the top level's;
 * each scenario merges across the shards that ran it with the same section mergers, over its own
 * histograms, on the merged run's clock. Adding a section to a scenario's report is one line in
 * `SCENARIO_SECTIONS` (the type makes it required).
 */
import { z } from 'zod';
import type { Report, ScenarioReport } from '../model.js';
import { checksMerge } from './checks.js';
import { violationTotalsSection } from './contract-violations.js';
import { histogramsSection } from './histograms.js';
import { iterationsMerge } from './iterations.js';
import { loadMerge } from './load.js';
import { bySection, mergeHistogramMaps, mergeSections, type Part, type Scope, type Section, type Sections, type Source } from './merge-kit.js';
import { opsMerge } from './ops.js';
import { rateLimitMerge } from './rate-limit.js';
import { sloMerge } from './slo.js';
import { stepsMerge } from './steps.js';
import { streamMerge } from './stream.js';

// Each scenario's sections have the top level's shapes (documented there, not again).
/** report@1 `scenarios`. */
export const scenariosSchema = z.record(z.string(), z.record(z.string(), z.unknown()));

/** Every section of a scenario's report, and how it merges. */
export const SCENARIO_SECTIONS: Sections<ScenarioReport> = {
  load: bySection(loadMerge),
  ops: bySection(opsMerge),
  stream: bySection(streamMerge),
  rateLimit: bySection(rateLimitMerge),
  slo: bySection(sloMerge),
  contractViolationTotals: violationTotalsSection,
  iterations: bySection(iterationsMerge),
  checks: bySection(checksMerge),
  steps: bySection(stepsMerge),
  histograms: histogramsSection,
};

/** `scenarios`, kind `each`: scenario by scenario, each like a report of its own. */
export const scenariosSection: Section<Readonly<Record<string, ScenarioReport>>, Pick<Report, 'scenarios'>> = {
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
