/**
 * `asyncRuns`: runs and triggers followed to their end. Counts add; the poll interval is a
 * setting the shards must share; the mean polls per run is weighted by the runs each shard
 * finished (`pollsPerRun.runs`), never added; progress extremes are the lowest and highest
 * seen; the times to completion keep only a summary (no histogram), so each statistic takes its
 * worst shard.
 */
import { bySection, fields, max, min, recompute, setting, sum, sumCounts, weightedMean, type Rule } from './merge-kit.js';
import { worst } from './merge-histograms.js';
import { fromPhase } from './project-kit.js';
import type { AsyncRunsReport } from './async-runs-schema.js';
import { asyncRunsViews } from './async-runs-views.js';

type Progress = AsyncRunsReport['progress'];

type PollsPerRun = AsyncRunsReport['pollsPerRun'];

/** How `asyncRuns` merges. */
export const asyncRunsMerge: Rule<AsyncRunsReport> = fields<AsyncRunsReport>({
  pollIntervalMs: setting({ label: 'asyncRuns.pollIntervalMs (the poll interval)' }),
  // Half the interval: a setting as the interval is.
  meanBiasMs: setting({ label: 'asyncRuns.meanBiasMs (half the poll interval)' }),
  followed: fields<AsyncRunsReport['followed']>({ run: sum, trigger: sum }),
  notFollowed: fields<AsyncRunsReport['notFollowed']>({ cap: sum, stopped: sum }),
  final: fields<AsyncRunsReport['final']>({ completed: sum, failed: sum, timeout: sum, abandoned: sum, error: sum }),
  active: sum,
  timeToCompletionMs: worst,
  pollsPerRun: fields<PollsPerRun>({
    runs: sum,
    // Weighted by the finished follows of each shard: {10 runs, 4} and {30 runs, 2} are 2.5.
    mean: weightedMean<PollsPerRun, 'runs'>('runs'),
    max: max<number>(),
  }),
  polls: fields<AsyncRunsReport['polls']>({ total: sum, statuses: sumCounts, errors: sumCounts }),
  progress: fields<Progress>({
    values: sum,
    min: min<number | null>(),
    max: max<number | null>(),
    atCompletion: fields<Progress['atCompletion']>({ min: min<number | null>(), max: max<number | null>() }),
    outside0to100: sum,
    nonInteger: sum,
    missing: sum,
    decreases: sum,
    runsWithDecrease: sum,
    // No run of any shard went down: the merged decreases are none.
    monotonic: recompute((m, parents) => (m.decreases === undefined ? parents.every((p) => p.value.monotonic) : m.decreases === 0)),
  }),
  triggers: fields<AsyncRunsReport['triggers']>({ completedByPolling: sum, completedByNotification: sum, timeToCompletionMs: worst }),
});

/** `asyncRuns`: projected by its phase of the run (`run/phases/`), merged by the rules above. */
export const asyncRunsSection = { ...fromPhase('asyncRuns', bySection(asyncRunsMerge)), views: asyncRunsViews };
