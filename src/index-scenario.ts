/**
 * `flowgauge/scenario`: what a scenario file needs — `defineScenario`, the input types, and the
 * journey contract (`Vu`) — plus loading and resolving a scenario file from a program.
 */
export { defineScenario, loadScenario, loadScenarioFile, resolveRunPlan, resolveScenario } from './scenario/index.js';
export type {
  DataInput,
  DataRow,
  DurationInput,
  Journey,
  LoadInput,
  MixEntryInput,
  RateInput,
  ResolvedRunPlan,
  ResolvedScenario,
  RunPlanInput,
  ScenarioInput,
  ScenarioOverrides,
  StepInput,
  ThresholdInput,
  Vu,
} from './scenario/index.js';
