/**
 * Case 4: memory over a long run. The flowgauge driver runs the closed model (50 workers,
 * collectors on) against the node:http server until the planned number of requests
 * (1,000,000; 100,000 with `--quick`) have completed; targets: peak RSS ≤ 150 MB and growth
 * from the first tenth of the requests to the end ≤ 10 MB.
 */
import { spawnScript } from '../lib/bundle.js';
import { GENERATOR_CORE, resultOf, SERVER_CORE } from '../lib/proc.js';
import type { BenchContext } from './context.js';

/** What the memory driver reports. */
export interface MemoryResult {
  readonly requests: number;
  readonly elapsedS: number;
  readonly rssStartMb: number;
  readonly rssAtTenthMb: number | undefined;
  readonly rssEndMb: number;
  readonly rssSampledPeakMb: number;
  /** The kernel's high-water mark for the process (includes start-up). */
  readonly maxRssMb: number;
  readonly heapUsedMb: number;
  readonly series: readonly { readonly completed: number; readonly rssMb: number; readonly heapUsedMb: number; readonly heapTotalMb: number; readonly externalMb: number }[];
  /** rssEnd − rssAtTenth. */
  readonly growthMb: number | undefined;
  /** Node flags the driver ran with (none unless asked for). */
  readonly nodeFlags: readonly string[];
}

/** Runs case 4. */
export async function runMemory(ctx: BenchContext): Promise<MemoryResult> {
  const requests = ctx.plan.memoryRequests;
  const server = await spawnScript('servers/json-server.ts', [], SERVER_CORE);
  try {
    const ready = await server.waitFor(/READY (.*)/);
    const { port } = JSON.parse(ready[1] as string) as { port: number };
    ctx.log(`memory: ${requests.toLocaleString('en-US')} requests, closed model, 50 workers${ctx.plan.memoryNodeFlags.length > 0 ? ` (node ${ctx.plan.memoryNodeFlags.join(' ')})` : ''}`);
    const flags = ctx.plan.memoryNodeFlags;
    const r = await resultOf<Omit<MemoryResult, 'growthMb' | 'nodeFlags'>>(
      await spawnScript('drivers/flowgauge-memory.ts', ['--base-url', `http://127.0.0.1:${port}/v1`, '--requests', String(requests)], GENERATOR_CORE, flags),
      900_000,
    );
    return { ...r, growthMb: r.rssAtTenthMb === undefined ? undefined : r.rssEndMb - r.rssAtTenthMb, nodeFlags: flags };
  } finally {
    await server.stop();
  }
}
