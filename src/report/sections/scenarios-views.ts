/** The views of `scenarios`: each scenario's own figures, one row each, in a run of several. */
import { fmtAvailability, fmtNumber } from '../format.js';
import { section, table } from '../html-parts.js';
import { mdPlain as plain, mdTable } from '../markdown-kit.js';
import type { Report } from '../model.js';
import type { SectionViews } from './view-kit.js';

/** One row of the scenarios table. */
interface ScenarioRow {
  readonly name: string;
  readonly started: number;
  readonly ratePerS: number;
  readonly availability: string;
  readonly responses429: number;
  readonly premature429: number;
  readonly iterations: string;
}

function scenarioRows(r: Report): ScenarioRow[] {
  return Object.entries(r.scenarios ?? {}).map(([name, s]) => ({
    name,
    started: s.load.started,
    ratePerS: s.load.achievedRatePerS,
    availability: fmtAvailability(s.slo).text,
    responses429: s.rateLimit.responses429,
    premature429: s.rateLimit.premature429,
    iterations: s.iterations === undefined ? '–' : `${s.iterations.completed}/${s.iterations.started} (${s.iterations.failed} failed)`,
  }));
}

const HEAD = ['scenario', 'started', 'rate/s', 'availability', '429s', 'premature 429s', 'iterations'];

function summaryScenarios(r: Report): string[] {
  const rows = scenarioRows(r);
  if (rows.length === 0) return [];
  return [
    'scenarios:',
    ...rows.map((s) => `  ${s.name}: ${s.started} started at ${fmtNumber(s.ratePerS)}/s, availability ${s.availability}, ${s.responses429} × 429 (${s.premature429} premature), iterations ${s.iterations}`),
  ];
}

function markdownScenarios(r: Report): string[] {
  const rows = scenarioRows(r);
  if (rows.length === 0) return [];
  return [
    '## Scenarios',
    '',
    mdTable(HEAD, rows.map((s) => [plain(s.name), String(s.started), fmtNumber(s.ratePerS), s.availability, String(s.responses429), String(s.premature429), s.iterations]), [1, 2, 3, 4, 5]),
  ];
}

function htmlScenarios(r: Report): string {
  const rows = scenarioRows(r);
  if (rows.length === 0) return '';
  return section('scenarios', 'Scenarios', [
    table(HEAD, rows.map((s) => [s.name, String(s.started), fmtNumber(s.ratePerS), s.availability, String(s.responses429), String(s.premature429), s.iterations]), [1, 2, 3, 4, 5]),
  ]);
}

/** The views of `scenarios`. */
export const scenariosViews: SectionViews = {
  summary: { scenarios: summaryScenarios },
  markdown: { scenarios: markdownScenarios },
  html: { scenarios: htmlScenarios },
};
