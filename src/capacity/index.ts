/** The capacity sweep: the highest throughput of one operation that meets a p99 and an error objective. */
export { judgeStep, sweepCapacity, type StepMeasurement } from './sweep.js';
export { createClientMeasure } from './measure.js';
export { describeCapacity, renderCapacityAscii, renderCapacityHtml, renderCapacityTable, type CapacityObjectives } from './chart.js';
