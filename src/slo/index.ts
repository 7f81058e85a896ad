export * from './sli.js';
export * from './budget.js';
export * from './threshold-grammar.js';
export * from './thresholds.js';
