/**
 * A target that trickles its usage analytics forever (the audit's one read after the run):
 * the run still ends at its finish deadline with its report, the audit marked incomplete.
 */
import { createServer, type Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createClient } from '../../src/api/index.js';
import { executeRun } from '../../src/run/index.js';
import { resolveScenario } from '../../src/scenario/index.js';

const FLOW = { id: 'flow_1', name: 'f', description: 'd', status: 'published', created_at: '2026-01-01T00:00:00Z', updated_at: '2026-01-01T00:00:00Z', endpoint: 'http://127.0.0.1/v1/flows/flow_1/run' };
const FLOWS = JSON.stringify({ flows: [FLOW], total: 1, limit: 20, offset: 0 });
const RUN = JSON.stringify({ id: 'run_1', flow_id: 'flow_1', status: 'completed', output: 'ok', created_at: '2026-01-01T00:00:00Z', completed_at: '2026-01-01T00:00:01Z', usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 } });

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r));
});

describe('a trickling audit', () => {
  it('ends at the finish deadline with the report written and the audit marked incomplete', async () => {
    const trickles: NodeJS.Timeout[] = [];
    server = createServer((req, res) => {
      if (req.url?.startsWith('/v1/analytics/usage') === true) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"metrics": ');
        trickles.push(setInterval(() => res.write(' '), 100));
        return;
      }
      const body = req.method === 'POST' ? RUN : FLOWS;
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      res.end(body);
    });
    server.on('close', () => trickles.forEach(clearInterval));
    await new Promise<void>((r) => (server as Server).listen(0, '127.0.0.1', r));
    const baseUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}/v1`;
    const client = createClient({ baseUrl, token: 'fg_trickle_token', timeouts: { bodyMs: 120_000 } });
    const scenario = resolveScenario({ name: 'trickle', tier: 'pro', load: { rate: '20/s', duration: '300ms' }, mix: [{ op: 'run', input: 'hi' }] });
    const { report } = await executeRun({ scenario, client, target: { baseUrl, embedded: false }, audit: true, finishTimeoutMs: 1000 });
    await client.close();
    trickles.forEach(clearInterval);
    expect(report.load.started).toBe(6);
    expect(report.audit?.incomplete).toBe(true);
    expect(report.audit?.usage?.errors?.join(' ')).toContain('ABORTED');
  });
});
