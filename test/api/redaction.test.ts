import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ApiError, TransportError, createClient, type Client } from '../../src/api/index.js';
import * as fx from './fixtures.js';
import { closedPort, sendJson, serveEach, TEST_TRANSPORT, type TestServer } from './test-server.js';

let server: TestServer;
let client: Client;

serveEach((s, c) => {
  server = s;
  client = c;
});

function renderings(x: unknown): string[] {
  const e = x as Error;
  return [String(e), e.stack ?? '', inspect(e, { depth: 10, showHidden: true }), JSON.stringify(e), e.message];
}

describe('token redaction', () => {
  it('the client shows its addresses, never the token', () => {
    const shown = [inspect(client, { depth: 10, showHidden: true }), JSON.stringify(client), String(client), `${JSON.stringify({ client })}`];
    for (const s of shown) expect(s).not.toContain(fx.TOKEN);
    expect(inspect(client)).toContain(client.baseUrl);
    expect(JSON.parse(JSON.stringify(client))).toEqual({ baseUrl: client.baseUrl, webhookHost: client.webhookHost });
  });

  it('an ApiError whose server echoes the token does not carry it', async () => {
    server.handler = (_req, res) =>
      sendJson(res, 401, {
        error: { code: 'UNAUTHORIZED', message: `token ${fx.TOKEN} is revoked`, details: { token: fx.TOKEN, nested: [{ [fx.TOKEN]: 1 }] } },
        request_id: 'req_1',
      });
    const r = await client.run('f', { input: 'x' });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error).toBeInstanceOf(ApiError);
    expect(r.error.message).toContain('[redacted]');
    for (const s of renderings(r.error)) expect(s).not.toContain(fx.TOKEN);
    expect(JSON.stringify(r)).not.toContain(fx.TOKEN);
  });

  it('a long error message is redacted before it is cut, so no half of the token survives', async () => {
    const half = Math.floor(fx.TOKEN.length / 2);
    // The token straddles the 200-character cut.
    const message = `${'x'.repeat(200 - half)}${fx.TOKEN} and more`;
    server.handler = (_req, res) => sendJson(res, 401, { error: { code: 'UNAUTHORIZED', message }, request_id: 'req_1' });
    const r = await client.run('f', { input: 'x' });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    for (const s of renderings(r.error)) expect(s).not.toContain(fx.TOKEN.slice(0, half));
  });

  it('violations quoting an echoed token do not carry it', async () => {
    server.handler = (_req, res) => sendJson(res, 200, { ...fx.runStatus, status: fx.TOKEN });
    const r = await client.getRun('r');
    expect(r.violations).toHaveLength(1);
    expect(JSON.stringify(r.violations)).not.toContain(fx.TOKEN);
  });

  it('a TransportError does not carry the token', async () => {
    const port = await closedPort();
    const c = createClient({ baseUrl: `http://127.0.0.1:${port}/v1`, token: fx.TOKEN, transport: TEST_TRANSPORT });
    try {
      const r = await c.getRun('r');
      expect(r.ok).toBe(false);
      if (r.ok) return;
      expect(r.error).toBeInstanceOf(TransportError);
      for (const s of renderings(r.error)) expect(s).not.toContain(fx.TOKEN);
      expect(inspect(r, { depth: 10 })).not.toContain(fx.TOKEN);
    } finally {
      await c.close();
    }
  });

  it('configuration errors do not quote the token', () => {
    let thrown: unknown;
    try {
      createClient({ baseUrl: 'ftp://x/v1', token: `${fx.TOKEN}\n` });
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(Error);
    for (const s of renderings(thrown)) expect(s).not.toContain(fx.TOKEN);
  });
});
