/** What every benchmark case gets from bench/run.ts. */
import type { PeerInventory } from '../lib/peers.js';

/** Durations and counts of one `npm run bench` (shortened by `--quick`). */
export interface BenchPlan {
  readonly quick: boolean;
  /** Rounds of each saturation comparison (tools alternate within a round). */
  readonly rounds: number;
  readonly saturationS: number;
  readonly warmupS: number;
  readonly openRatePerS: number;
  readonly openS: number;
  readonly streamS: number;
  readonly memoryRequests: number;
  /** Concurrent streams of the streaming case (`--streams`; default 200). */
  readonly streamConcurrency: number;
  /** Paced streams: tokens per stream and the gap between them (`--stream-pacing 20x20ms`; 20 tokens every 20 ms by default). */
  readonly pacing: { readonly tokens: number; readonly intervalMs: number };
  /** Extra node flags of the memory driver (`--memory-node-flags`), for experiments; none by default. */
  readonly memoryNodeFlags: readonly string[];
  /** `--smoke`: the quick plan cut further (a check that every case runs end to end, its figures not for judging). */
  readonly smoke?: boolean;
  /** Concurrent streams of case 3b (10,000; 1,000 under `--smoke`). */
  readonly manyStreams?: number;
}

/** The full plan, the `--quick` plan (one round each), and the `--smoke` plan (shorter still, 1,000 streams in case 3b). */
export function benchPlan(quick: boolean, memoryNodeFlags: readonly string[] = [], streamConcurrency = 200, pacing = { tokens: 20, intervalMs: 20 }, smoke = false): BenchPlan {
  if (smoke) return { quick: true, smoke, rounds: 1, saturationS: 2, warmupS: 1, openRatePerS: 5000, openS: 3, streamS: 2, memoryRequests: 20_000, memoryNodeFlags, streamConcurrency, pacing, manyStreams: 1000 };
  return quick
    ? { quick, rounds: 1, saturationS: 3, warmupS: 1, openRatePerS: 5000, openS: 5, streamS: 3, memoryRequests: 100_000, memoryNodeFlags, streamConcurrency, pacing }
    : { quick, rounds: 2, saturationS: 6, warmupS: 2, openRatePerS: 5000, openS: 20, streamS: 8, memoryRequests: 1_000_000, memoryNodeFlags, streamConcurrency, pacing };
}

/** Shared by the cases. */
export interface BenchContext {
  readonly plan: BenchPlan;
  readonly peers: PeerInventory;
  /** Progress for the person waiting (stderr). */
  log(message: string): void;
}
