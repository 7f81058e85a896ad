/**
 * How a section shows itself in the three documents a person reads (the console summary,
 * report.md, report.html) and where. Each document is laid out here as places in the order it
 * reads; a section's views (`SectionViews`, on its entry of `REPORT_SECTIONS`) name the places
 * they fill, and each writer loops over the section list as `buildReport` and `mergeReports` do,
 * putting every view at its place (views at one place keep the list's order). The orders differ
 * by design: the console ends with the thresholds, the documents open with the verdict.
 */
import type { HtmlChartData } from '../html-data.js';
import type { Report } from '../model.js';

/** Colours text for the terminal (or leaves it as it is when colours are off). */
export type Paint = (code: 'green' | 'red' | 'dim' | 'bold', text: string) => string;

/** What a console view knows besides the report. */
export interface SummaryContext {
  readonly paint: Paint;
  /** This process ran one shard (1-based index) of several: the figures are its share only. */
  readonly shard?: { readonly index: number; readonly count: number } | undefined;
}

/**
 * The console summary, top to bottom: groups of places, a group's lines set apart from the rest
 * by a blank line after (or before) them when it wrote any. `more` is where a section that
 * names no other place goes.
 */
export const SUMMARY_LAYOUT = [
  { places: ['head'], apart: 'after' },
  { places: ['latency'], apart: 'after' },
  { places: ['phases'], apart: 'after' },
  { places: ['stream', 'rateLimit', 'slo', 'errors', 'cut', 'contract', 'asyncRuns', 'notifications', 'audit', 'more'] },
  { places: ['iterations', 'promptLengths', 'checks', 'scenarios', 'warnings'], apart: 'after' },
  { places: ['thresholds'], apart: 'before' },
] as const satisfies readonly { readonly places: readonly string[]; readonly apart?: 'after' | 'before' }[];

/** report.md, top to bottom: each view's lines are one block, blocks apart by a blank line. */
export const MARKDOWN_LAYOUT = [
  'title',
  'headline',
  'thresholds',
  'availability',
  'run',
  'warnings',
  'scenarios',
  'iterations',
  'promptLengths',
  'checks',
  'latency',
  'stream',
  'rateLimit',
  'errors',
  'contract',
  'notifications',
  'asyncRuns',
  'audit',
  'more',
] as const;

/**
 * report.html: the header (the page's navigation follows it), then the body, top to bottom. Each
 * entry (a place, or several) that has views is one part of the page, a line of its own: the
 * markup of its views that wrote any, one after the other.
 */
export const HTML_LAYOUT = {
  header: ['title', 'meta'],
  body: [
    'verdict',
    'thresholds',
    ['warnings', 'scenarios', 'iterations', 'promptLengths', 'checks'],
    'slo',
    'latency',
    'stream',
    'rateLimit',
    'errors',
    'contract',
    'notifications',
    'asyncRuns',
    'audit',
    'more',
  ],
} as const;

type Flat<T> = T extends readonly (infer E)[] ? E : T;

/** A place of the console summary. */
export type SummaryPlace = (typeof SUMMARY_LAYOUT)[number]['places'][number];
/** A place of report.md. */
export type MarkdownPlace = (typeof MARKDOWN_LAYOUT)[number];
/** A place of report.html. */
export type HtmlPlace = (typeof HTML_LAYOUT)['header'][number] | Flat<(typeof HTML_LAYOUT)['body'][number]>;

/** Console lines (no trailing blank line; none when the report has nothing for the place). */
export type SummaryView = (r: Report, c: SummaryContext) => readonly string[];
/** One block of report.md, as lines (none when the report has nothing for the place). */
export type MarkdownView = (r: Report) => readonly string[];
/** Markup of report.html built only from escaped text (`html-parts.ts`); '' when absent. */
export type HtmlView = (r: Report, charts: HtmlChartData) => string;

/** A section's views, each under the place it fills. */
export interface SectionViews {
  readonly summary?: { readonly [P in SummaryPlace]?: SummaryView };
  readonly markdown?: { readonly [P in MarkdownPlace]?: MarkdownView };
  readonly html?: { readonly [P in HtmlPlace]?: HtmlView };
}
