export * from './sli.js';
export * from './budget.js';
export * from './threshold-grammar.js';
export * from './thresholds.js';
export * from './metric-names.js';
export * from './prometheus-rules.js';
export * from './grafana-dashboards.js';
