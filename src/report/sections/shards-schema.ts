/**
 * report@1 `shard` (a shard's own report) and `shards` (a merge of shards' reports): the zod
 * schema, and the types taken from it. How they are projected and merged is in `shards.ts`; the
 * whole report's schema is put together in `../report-schema.ts`.
 */
import { z } from 'zod';
import { obj, str, type DeepReadonly } from './schema-kit.js';

const positive = z.int().min(1);

/** report@1 `shard`: which shard of which run this report is. */
export const shardSchema = obj(
  {
    /** 1-based, as `--shard i/N` (an Indexed Job's `JOB_COMPLETION_INDEX` + 1). */
    index: positive,
    count: positive,
    /** What the scenario resolved to (every setting, the source of its code): the shards of one run share it. */
    fingerprint: str,
  },
  {
    /** The run the shards share: `--run-id`, `FLOWGAUGE_RUN_ID`, or derived from the scenario and `--start-at`. */
    runId: str,
  },
);

/** report@1 `shards`: the shards a merged report holds, and those it lacks. */
export const shardsSchema = obj(
  {
    count: positive,
    /** Shard indices (1-based) merged, ascending. */
    present: z.array(positive),
    /** Shard indices (1-based) of the run not merged: non-empty marks the report incomplete. */
    missing: z.array(positive),
    fingerprint: str,
  },
  { runId: str },
);

/** `shard` (added in @1): which shard of which run wrote this report. */
export type ShardReport = DeepReadonly<z.output<typeof shardSchema>>;
/** `shards` (added in @1): the shards of a merged report, present and missing. */
export type ShardsReport = DeepReadonly<z.output<typeof shardsSchema>>;
