/** The capacity sweep: the highest throughput of one operation that meets its latency (p99, TTFT or TPOT p95) and error objectives. */
export { judgeStep, sweepCapacity, type StepMeasurement, type StepStreamFigures } from './sweep.js';
export { createClientMeasure } from './measure.js';
export { describeCapacity, renderCapacityAscii, renderCapacityTable, type CapacityObjectives } from './chart.js';
export { renderCapacityHtml, renderCapacityMarkdown } from './page.js';
