/**
 * The embedded reference service's memory over a long run, for the figure in
 * docs/reference-service.md: runs and session creations alternately through HTTP (32 at a
 * time, no latency, a token without a practical limit), the heap after a full GC every
 * 50,000 requests. Run by hand with the GC exposed:
 *
 *   node --expose-gc --import tsx bench/reference-memory.ts [requests, default 300000]
 */
import { Agent, request } from 'undici';
import { startReferenceService } from '../src/target/index.js';

const TOKEN = 'fg_memory_bench_token';

async function main(): Promise<void> {
  const total = Number(process.argv[2] ?? 300_000);
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) throw new Error('run with node --expose-gc');
  const svc = await startReferenceService({ latency: 'none', tokens: { [TOKEN]: { account: 'acct_b', tier: { limitPerMinute: 1e9 } } } });
  const agent = new Agent({ connections: 32 });
  const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
  const list = await request(`${svc.baseUrl}/flows`, { headers, dispatcher: agent });
  const flowId = (JSON.parse(await list.body.text()) as { flows: { id: string }[] }).flows[0]?.id ?? '';
  let next = 0;
  const started = performance.now();
  const worker = async (): Promise<void> => {
    while (next < total) {
      const n = next++;
      const run = n % 2 === 0;
      const body = run ? { input: `ticket ${n} about billing` } : { flow_id: flowId, metadata: { n } };
      const res = await request(`${svc.baseUrl}${run ? `/flows/${flowId}/run` : '/sessions'}`, { method: 'POST', headers, body: JSON.stringify(body), dispatcher: agent });
      await res.body.text();
      if ((n + 1) % 50_000 === 0) {
        gc();
        const m = process.memoryUsage();
        console.log(JSON.stringify({ requests: n + 1, heapMb: Math.round(m.heapUsed / 2 ** 20), rssMb: Math.round(m.rss / 2 ** 20) }));
      }
    }
  };
  await Promise.all(Array.from({ length: 32 }, worker));
  console.log(JSON.stringify({ seconds: Math.round((performance.now() - started) / 1000), records: svc.stats().records }));
  await agent.close();
  await svc.close();
}

main().catch((err: unknown) => {
  process.stderr.write(`bench: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
});
