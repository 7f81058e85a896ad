/**
 * flowgauge as a library: scenarios, the client, the run engine, probes, collectors, reports,
 * exporters and the embedded reference service. The CLI is `bin/flowgauge.mjs`.
 */
export * from './core/index.js';
export * from './api/index.js';
export * from './scenario/index.js';
export * from './load/index.js';
export * from './collect/index.js';
export * from './slo/index.js';
export * from './report/index.js';
export * from './export/index.js';
export * from './run/index.js';
export * from './probe/index.js';
export * from './conformance/index.js';
export * from './target/index.js';
