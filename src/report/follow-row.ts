/**
 * The follower's polls as their own row of the latency-by-operation tables: `getRun (follow)`,
 * from `asyncRuns.polls`. They are not in `ops` (its keys are the interface's operations, a
 * contract, and they are not the scenario's load), but the tenant's limit paid for them, so the
 * tables show them beside the scenario's own `getRun`. No latency is kept for them.
 */
import type { Report } from './model.js';

/** The row's name in every table. */
export const FOLLOW_ROW = 'getRun (follow)';

/** What the row shows. */
export interface FollowPollsRow {
  readonly count: number;
  /** Polls answered 2xx. */
  readonly good: number;
  /** Every other poll (429s included). */
  readonly bad: number;
  readonly responses429: number;
}

/** The row, when the run followed anything with at least one poll. */
export function followPollsRow(r: Report): FollowPollsRow | undefined {
  const polls = r.asyncRuns?.polls;
  if (polls === undefined || polls.total === 0) return undefined;
  let good = 0;
  for (const [status, n] of Object.entries(polls.statuses)) {
    const code = Number(status);
    if (code >= 200 && code < 300) good += n;
  }
  return { count: polls.total, good, bad: polls.total - good, responses429: polls.statuses['429'] ?? 0 };
}

/** Said under a table that has the row. */
export const FOLLOW_ROW_NOTE = `${FOLLOW_ROW}: polls of runs followed to their end (asyncRuns), not the scenario's own requests; no latency is kept for them.`;
