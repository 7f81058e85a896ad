/**
 * `flowgauge/report`: the `flowgauge/report@1` contract — reading a report back, its JSON
 * Schema, exact merging of shards, comparing two runs, and the three renderings.
 */
export {
  compareReports,
  mergeReports,
  parseRegressionRules,
  readReport,
  renderHtml,
  renderMarkdown,
  renderSummary,
  REPORT_JSON_SCHEMA,
} from './report/index.js';
export type { Comparison, ComparisonRow, HtmlAssets, MergeOptions, RegressionRule, Report, RunVerdict } from './report/index.js';
