/**
 * A run as one shard of a distributed run, and a run that starts after the instant its shards
 * share (`--start-at`). Pure: the engine reads its clock and asks here where in the schedule it
 * joins.
 */
import { FlowgaugeError } from '../core/errors.js';
import type { ShardReport } from '../report/index.js';

/** Which shard of which run this process is. */
export interface RunShard {
  /** 0-based (the report says it 1-based). */
  readonly index: number;
  readonly count: number;
  /** The run the shards share (`--run-id`, `FLOWGAUGE_RUN_ID`, or from `--start-at`). */
  readonly runId?: string | undefined;
  /**
   * The resolved scenario's fingerprint. With it the report says which shard of which run it
   * is (`shard`), so `merge` can refuse reports of other runs or scenarios and name missing
   * shards; without it (a library's own split) the report has no `shard`.
   */
  readonly fingerprint?: string | undefined;
}

/** What a shard's report says of it (`shard`, 1-based), when it knows its fingerprint. */
export function shardOfReport(shard: RunShard | undefined): ShardReport | undefined {
  if (shard?.fingerprint === undefined) return undefined;
  return { index: shard.index + 1, count: shard.count, fingerprint: shard.fingerprint, ...(shard.runId !== undefined ? { runId: shard.runId } : {}) };
}

/**
 * A run this late after the instant its shards share starts at once, its whole schedule shifted
 * by as much (the merge calls shards within as much of each other together); later than that it
 * joins the schedule in phase.
 */
export const JOIN_LATE_AFTER_MS = 1000;

/**
 * Where in its schedule a run that starts at wall instant `nowMs` joins it, in ms: 0 when there
 * is no shared start or it is at most `JOIN_LATE_AFTER_MS` past, else how far past it is.
 */
export function joinPointMs(startAtMs: number | undefined, nowMs: number): number {
  if (startAtMs === undefined) return 0;
  const lateMs = nowMs - startAtMs;
  return lateMs > JOIN_LATE_AFTER_MS ? lateMs : 0;
}

/**
 * Throws `FG_CONFIG_INVALID` (exit 2, before the first request) when a run would join its
 * schedule at or past its end (`wholeMs`, the latest scenario's end): nothing would be left to
 * send, and a report of nothing sent must not pass for a shard that ran. `--start-at` refuses
 * such a time before preparing; this is the same rule for a run whose preparing took that long.
 */
export function checkJoinable(joinedAtMs: number, wholeMs: number): void {
  if (joinedAtMs > 0 && joinedAtMs >= wholeMs) {
    throw new FlowgaugeError(
      'FG_CONFIG_INVALID',
      `ready ${(joinedAtMs / 1000).toFixed(1)} s after --start-at, past the scenario's whole ${(wholeMs / 1000).toFixed(1)} s schedule: nothing is left to send, so nothing was sent and no report written; start the shards with a wider margin before --start-at`,
    );
  }
}
