/**
 * A run as one shard of a distributed run, and a run that starts after the instant its shards
 * share (`--start-at`). Pure: the engine reads its clock and asks here where in the schedule it
 * joins.
 */
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
