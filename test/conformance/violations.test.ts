/**
 * The battery against a deliberately broken target: each statement of the interface it breaks
 * is reported as a violation, and nothing it does crashes the battery.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { renderConformanceMarkdown, runConformance } from '../../src/conformance/index.js';

const TOKEN = 'fg_broken_target_token';
let server: Server | undefined;
afterEach(async () => {
  await new Promise<void>((resolve) => (server === undefined ? resolve() : server.close(() => resolve())));
  server?.closeAllConnections();
  server = undefined;
});

const now = new Date().toISOString();
const flow = (i: number) => ({ id: `flow_${i}`, name: `f${i}`, description: '', status: 'published', created_at: now, updated_at: now, endpoint: `http://x/v1/flows/flow_${i}/run` });

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', 'x-ratelimit-limit': '1000', 'x-ratelimit-remaining': '900', 'x-ratelimit-reset': '30', ...headers });
  res.end(typeof body === 'string' ? body : JSON.stringify(body));
}

/** Breaks several statements: default limit, content type, auth errors, error bodies, missing input. */
function broken(req: IncomingMessage, res: ServerResponse): void {
  let text = '';
  req.on('data', (c: Buffer) => (text += c.toString()));
  req.on('end', () => {
    const url = new URL(req.url ?? '/', 'http://x');
    const auth = req.headers.authorization;
    if (auth !== `Bearer ${TOKEN}`) return send(res, 403, { error: 'go away' });
    if (url.pathname === '/v1/flows') {
      // Default limit 50 instead of 20, served as text/plain.
      return send(res, 200, { flows: Array.from({ length: 25 }, (_, i) => flow(i)), total: 25, limit: 50, offset: 0 }, { 'content-type': 'text/plain' });
    }
    if (url.pathname.startsWith('/v1/flows/') && url.pathname.endsWith('/run')) {
      const body = JSON.parse(text || '{}') as { input?: unknown };
      if (body.input === undefined) return send(res, 500, { error: { code: 'INTERNAL_ERROR', message: 'boom' }, request_id: 'req_1' });
      return send(res, 200, { id: 'run_1', flow_id: 'flow_0', status: 'completed', output: 'hi', created_at: now, completed_at: now, usage: { total_tokens: 'many', prompt_tokens: 1, completion_tokens: 1 } });
    }
    if (url.pathname.startsWith('/v1/flows/flow_flowgauge')) return send(res, 404, { error: { code: 'INVALID_REQUEST', message: 'no' }, request_id: 'req_2' });
    // Everything else: an error body without request_id.
    return send(res, 404, { error: { code: 'NOT_FOUND', message: 'nothing here' } });
  });
}

describe('conformance violations', () => {
  it('reports each broken statement with its rule, and renders them', async () => {
    server = createServer(broken);
    await new Promise<void>((resolve) => (server as Server).listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    const report = await runConformance({ baseUrl: `http://127.0.0.1:${port}/v1`, token: TOKEN, notificationWaitMs: 0 });
    expect(report.reachable).toBe(true);
    expect(report.passed).toBe(false);
    const rules = new Set(report.violations.map((v) => `${v.rule} ${v.path}`));
    for (const expected of [
      'lists.defaultLimit limit',
      'lists.defaultLimit flows',
      'content.json content-type',
      'auth.unauthorized status',
      'errors.body error',
      'errors.missingInput error',
      'errors.statusForCode status',
      'errors.body request_id',
      'schema.run usage.total_tokens',
    ]) {
      expect(rules, expected).toContain(expected);
    }
    const md = renderConformanceMarkdown(report);
    expect(md).toMatch(/## ❌ \d+ violations/);
    expect(md).toContain('`errors.missingInput`');
    expect(JSON.stringify(report)).not.toContain(TOKEN);
  });

  it('reports a refused token without probing further', async () => {
    server = createServer(broken);
    await new Promise<void>((resolve) => (server as Server).listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    const report = await runConformance({ baseUrl: `http://127.0.0.1:${port}/v1`, token: 'wrong-token' });
    expect(report).toMatchObject({ reachable: true, tokenAccepted: false, passed: false, requests: 1 });
    expect(renderConformanceMarkdown(report)).toContain('TOKEN REFUSED');
  });
});
