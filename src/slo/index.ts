export * from './sli.js';
export * from './budget.js';
export * from './threshold-grammar.js';
export * from './thresholds.js';
export * from './metric-names.js';
export * from './prometheus-rules.js';
// grafana-dashboards.js is left out on purpose: it loads the Grafana SDK, which no run or probe needs.
