/** `steps` (journeys): each named step's latency re-read from its merged histogram (`step.<name>`). */
import type { Pct } from '../../collect/histogram.js';
import { bySection, each, type Rule } from './merge-kit.js';
import { histogram } from './merge-histograms.js';
import type { FullSection, ScopeState } from './project-kit.js';

/** How `steps` merges: each step (kind `each`) by its histogram. */
export const stepsMerge: Rule<Readonly<Record<string, Pct>>> = each((name) => histogram(`step.${name}`, { noun: 'steps' }));

/** `steps`: the journeys' named steps, present when journeys ran and named some. */
export const stepsSection: FullSection<Readonly<Record<string, Pct>>, object, ScopeState> = {
  ...bySection(stepsMerge),
  project: (s) => (s.iterations !== undefined && Object.keys(s.iterations.steps).length > 0 ? s.iterations.steps : undefined),
};
