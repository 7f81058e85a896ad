/**
 * Requests that never finish do not vanish: a stream that sends tokens forever and a request
 * that is never answered are failures of their operation (`TIMEOUT`) once they outlive their own
 * deadline, also when the grace period ends after it, and the default objective fails the run.
 * Still within their deadline when the grace period ends, they are cut (`load.cut`: counted and
 * shown, not judged), and a run that judged nothing still fails its objective. A user's Ctrl-C
 * cancels what is open (excluded, counted).
 */
import { createServer, type Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createClient } from '../../src/api/index.js';
import { executeRun } from '../../src/run/index.js';
import { resolveScenario } from '../../src/scenario/index.js';

const FLOW = { id: 'flow_1', name: 'f', description: 'd', status: 'published', created_at: '2026-01-01T00:00:00Z', updated_at: '2026-01-01T00:00:00Z', endpoint: 'http://127.0.0.1/v1/flows/flow_1/run' };
const FLOWS = JSON.stringify({ flows: [FLOW], total: 1, limit: 20, offset: 0 });

let server: Server | undefined;
const timers: NodeJS.Timeout[] = [];
afterEach(async () => {
  timers.splice(0).forEach(clearInterval);
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r));
});

/** Answers the first flow list; then streams tokens forever, and never answers anything else. */
async function endless(): Promise<string> {
  let lists = 0;
  server = createServer((req, res) => {
    req.resume();
    if (req.url?.startsWith('/v1/flows?') === true && lists++ === 0) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(FLOWS);
      return;
    }
    if (req.url?.endsWith('/stream') === true) {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: {"type":"start","run_id":"run_1"}\n\n');
      timers.push(setInterval(() => res.write('data: {"type":"token","content":"a"}\n\n'), 20));
    }
  });
  await new Promise<void>((r) => (server as Server).listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as { port: number }).port}/v1`;
}

describe('requests that never finish', () => {
  it('are failures once past their own deadline (300 ms, inside the 1 s grace period): TIMEOUT, and the default objective fails', async () => {
    const baseUrl = await endless();
    const client = createClient({ baseUrl, token: 'fg_never_token' });
    const scenario = resolveScenario({
      name: 'never',
      tier: 'pro',
      load: { rate: '10/s', duration: '500ms', gracefulStop: '1s' },
      timeouts: { request: '300ms' },
      mix: [{ op: 'stream', input: 'hi' }, { op: 'listFlows' }],
    });
    const { report, passed } = await executeRun({ scenario, client, target: { baseUrl, embedded: false } });
    await client.close();
    const streams = report.ops.stream?.count ?? 0;
    const lists = report.ops.listFlows?.count ?? 0;
    expect(streams + lists).toBe(report.load.started);
    expect(report.load.cancelled ?? 0).toBe(0);
    expect(report.load.cut ?? 0).toBe(0);
    expect(report.stream.incomplete).toBe(streams);
    expect(report.ops.stream?.errors).toEqual({ TIMEOUT: streams });
    expect(report.ops.listFlows?.errors).toEqual({ TIMEOUT: lists });
    expect(report.slo.availability).toBe(0);
    expect(passed).toBe(false);
  });

  it('are cut, counted and not judged, when the grace period ends within their deadline; judging nothing fails the objective', async () => {
    const baseUrl = await endless();
    const client = createClient({ baseUrl, token: 'fg_never_token' });
    const scenario = resolveScenario({ name: 'never', tier: 'pro', load: { rate: '10/s', duration: '500ms', gracefulStop: '200ms' }, mix: [{ op: 'stream', input: 'hi' }, { op: 'listFlows' }] });
    const { report, passed } = await executeRun({ scenario, client, target: { baseUrl, embedded: false } });
    await client.close();
    expect(report.load).toMatchObject({ cut: report.load.started, gracefulStopS: 0.2 });
    expect(report.ops).toEqual({});
    expect(report.slo.availability).toBeNull();
    expect(passed).toBe(false);
  });

  it("are cancelled, not failed, when the user's stop cuts them", async () => {
    const baseUrl = await endless();
    const client = createClient({ baseUrl, token: 'fg_never_token' });
    const stop = new AbortController();
    const scenario = resolveScenario({ name: 'stopped', tier: 'pro', load: { rate: '10/s', duration: '5s', gracefulStop: '200ms' }, mix: [{ op: 'stream', input: 'hi' }] });
    const run = executeRun({ scenario, client, target: { baseUrl, embedded: false }, stopSignal: stop.signal });
    timers.push(setTimeout(() => stop.abort(), 300));
    const { report } = await run;
    await client.close();
    expect(report.interrupted).toBe(true);
    expect(report.load.cancelled).toBe(report.load.started);
    expect(report.slo.bad).toBe(0);
  });
});

describe('a target that trickles its answer before the run', () => {
  it('ends the preparation at its deadline, saying what it waited for', async () => {
    server = createServer((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"flows": [');
      timers.push(setInterval(() => res.write(' '), 50));
    });
    await new Promise<void>((r) => (server as Server).listen(0, '127.0.0.1', r));
    const baseUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}/v1`;
    const client = createClient({ baseUrl, token: 'fg_never_token' });
    const scenario = resolveScenario({ name: 'trickle', tier: 'pro', load: { rate: '10/s', duration: '500ms' }, mix: [{ op: 'listFlows' }] });
    const err = await executeRun({ scenario, client, target: { baseUrl, embedded: false }, prepareTimeoutMs: 400 }).then(
      () => undefined,
      (e: unknown) => e,
    );
    await client.close();
    expect((err as { code?: string }).code).toBe('FG_TARGET_UNREACHABLE');
    expect((err as Error).message).toContain('did not answer GET /flows within the preparation deadline (0.4 s)');
  });
});
