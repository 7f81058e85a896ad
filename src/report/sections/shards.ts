/**
 * `shard` and `shards`: which shard of which run a report is, and which shards a merge holds.
 * A shard's report says its index and count, the run it belongs to and the fingerprint of the
 * scenario it ran; merged, the reports must be of one run and one scenario, each shard once
 * (else the merge is refused, naming the files), and the shards none of them is are named as
 * missing: the merged report is then incomplete, never a pass (`thresholds.ts`). Reports without
 * a shard (an unsharded run, or a flowgauge before shards said who they are) merge as before,
 * but not with shards'.
 */
import type { Report } from '../model.js';
import { fail, type Part } from './merge-kit.js';
import type { FullSection, RunState } from './project-kit.js';
import type { ShardReport, ShardsReport } from './shards-schema.js';

type Claims = Pick<Report, 'shard' | 'shards'>;

/** What one part says of itself: the shards it holds, of which run. */
interface Claim {
  readonly name: string;
  readonly count: number;
  readonly indices: readonly number[];
  readonly runId: string | undefined;
  readonly fingerprint: string;
}

function claimOf(p: Part<Claims>): Claim | undefined {
  const { shard, shards } = p.value;
  if (shard !== undefined) return { name: p.source.name, count: shard.count, indices: [shard.index], runId: shard.runId, fingerprint: shard.fingerprint };
  if (shards !== undefined) return { name: p.source.name, count: shards.count, indices: shards.present, runId: shards.runId, fingerprint: shards.fingerprint };
  return undefined;
}

const list = (names: readonly string[]): string => (names.length <= 3 ? names.join(', ') : `${names.slice(0, 3).join(', ')} and ${names.length - 3} more`);

/** `shard i/N`, or `shards 1, 3/4` for a merged report's. */
export function shardLabel(r: Claims): string | undefined {
  if (r.shard !== undefined) return `shard ${r.shard.index}/${r.shard.count}`;
  if (r.shards !== undefined) return `shard${r.shards.present.length === 1 ? '' : 's'} ${r.shards.present.join(', ')}/${r.shards.count}`;
  return undefined;
}

/** The shards of one run, each once; throws (`FG_REPORT_INVALID`) naming the files otherwise. */
function checkClaims(parts: readonly Part<Claims>[]): ShardsReport | undefined {
  const claims = parts.map(claimOf);
  const sharded = claims.filter((c): c is Claim => c !== undefined);
  if (sharded.length === 0) return undefined;
  if (sharded.length < parts.length) {
    const plain = parts.filter((_, i) => claims[i] === undefined).map((p) => p.source.name);
    fail(
      `cannot merge: ${list(sharded.map((c) => c.name))} ${sharded.length === 1 ? 'is a shard' : 'are shards'} of a run, ${list(plain)} ${plain.length === 1 ? 'is' : 'are'} not ` +
        '(written without --shard or --shards, or by a flowgauge before shards said who they are): merge the reports of one run\'s shards',
    );
  }
  const first = sharded[0] as Claim;
  for (const c of sharded) {
    if (c.runId !== first.runId) {
      const run = (x: Claim): string => (x.runId === undefined ? 'no run id' : `run "${x.runId}"`);
      fail(`cannot merge: the reports are of different runs (${first.name}: ${run(first)}, ${c.name}: ${run(c)}); merge the shards of one run (they share --run-id, FLOWGAUGE_RUN_ID or --start-at)`);
    }
    if (c.fingerprint !== first.fingerprint) {
      fail(`cannot merge: ${first.name} and ${c.name} ran different scenarios or settings (fingerprints ${first.fingerprint} and ${c.fingerprint}); every shard of a run runs the same scenario file with the same flags`);
    }
    if (c.count !== first.count) fail(`cannot merge: ${first.name} is of ${first.count} shards, ${c.name} of ${c.count}; the shards of one run share their count`);
  }
  const seen = new Map<number, string>();
  for (const c of sharded) {
    for (const i of c.indices) {
      const other = seen.get(i);
      if (other !== undefined) fail(`cannot merge: shard ${i}/${first.count} is given twice (${other}, ${c.name}): merge each shard once (a retried pod may have written its report again)`);
      seen.set(i, c.name);
    }
  }
  const present = [...seen.keys()].sort((a, b) => a - b);
  const missing = Array.from({ length: first.count }, (_, i) => i + 1).filter((i) => !seen.has(i));
  return { count: first.count, present, missing, fingerprint: first.fingerprint, ...(first.runId !== undefined ? { runId: first.runId } : {}) };
}

/** `shard`: written by a shard's run; a merge of shards has `shards` instead. */
export const shardSection: FullSection<ShardReport, Claims, RunState> = {
  project: (s) => s.input.shard,
  merge: () => undefined,
};

/** `shards`: the merge's account of the shards, checked (kind `setting` for the run and scenario, `union` for the indices). */
export const shardsSection: FullSection<ShardsReport, Claims, RunState> = {
  project: () => undefined,
  merge: (parts) => checkClaims(parts),
};
