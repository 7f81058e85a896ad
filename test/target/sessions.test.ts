import { afterEach, describe, expect, it } from 'vitest';
import type { ReferenceService } from '../../src/target/index.js';
import { call, closeAll, start } from './helpers.js';

afterEach(closeAll);

async function flowOf(s: ReferenceService, token: string): Promise<string> {
  return (await call(s.baseUrl, 'GET', '/flows', { token })).json.flows[0].id as string;
}

describe('POST /sessions', () => {
  it('creates an active session echoing flow_id, user_id and metadata', async () => {
    const s = await start({ latency: 'none' });
    const flow = await flowOf(s, s.tokens.pro);
    const r = await call(s.baseUrl, 'POST', '/sessions', { token: s.tokens.pro, body: { flow_id: flow, user_id: 'u-1', metadata: { channel: 'web', n: 2 } } });
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ id: expect.stringMatching(/^ses_/), flow_id: flow, user_id: 'u-1', status: 'active', created_at: expect.any(String), metadata: { channel: 'web', n: 2 } });
  });

  it('defaults user_id and metadata', async () => {
    const s = await start({ latency: 'none' });
    const flow = await flowOf(s, s.tokens.pro);
    const r = await call(s.baseUrl, 'POST', '/sessions', { token: s.tokens.pro, body: { flow_id: flow } });
    expect(r.json).toMatchObject({ user_id: 'anonymous', metadata: {} });
  });

  it.each([
    [{}, 'flow_id'],
    [{ flow_id: 3 }, 'flow_id'],
    [{ flow_id: 'f', user_id: 1 }, 'user_id'],
    [{ flow_id: 'f', metadata: 'x' }, 'metadata'],
  ])('answers 400 for %j with details.field %s', async (body, field) => {
    const s = await start({ latency: 'none' });
    const r = await call(s.baseUrl, 'POST', '/sessions', { token: s.tokens.pro, body });
    expect(r.status).toBe(400);
    expect(r.json.error).toMatchObject({ code: 'INVALID_REQUEST', details: { field } });
  });

  it('answers 404 for an unknown flow and 403 for another account’s flow', async () => {
    const s = await start({ latency: 'none' });
    const other = await flowOf(s, s.tokens.free);
    expect((await call(s.baseUrl, 'POST', '/sessions', { token: s.tokens.pro, body: { flow_id: 'flow_x' } })).status).toBe(404);
    expect((await call(s.baseUrl, 'POST', '/sessions', { token: s.tokens.pro, body: { flow_id: other } })).status).toBe(403);
  });
});

describe('GET /sessions/{id}/history', () => {
  it('lists the messages of the session’s runs oldest first, with total', async () => {
    const s = await start({ latency: 'none' });
    const flow = await flowOf(s, s.tokens.pro);
    const ses = (await call(s.baseUrl, 'POST', '/sessions', { token: s.tokens.pro, body: { flow_id: flow } })).json;
    const empty = await call(s.baseUrl, 'GET', `/sessions/${ses.id}/history`, { token: s.tokens.pro });
    expect(empty.json).toEqual({ session_id: ses.id, messages: [], total: 0 });
    const outputs: string[] = [];
    for (const input of ['first', 'second']) {
      const run = await call(s.baseUrl, 'POST', `/flows/${flow}/run`, { token: s.tokens.pro, body: { input, session_id: ses.id } });
      outputs.push(run.json.output);
    }
    const h = await call(s.baseUrl, 'GET', `/sessions/${ses.id}/history`, { token: s.tokens.pro });
    expect(h.json.total).toBe(4);
    expect(h.json.messages.map((m: { role: string; content: string }) => [m.role, m.content])).toEqual([
      ['user', 'first'],
      ['assistant', outputs[0]],
      ['user', 'second'],
      ['assistant', outputs[1]],
    ]);
    for (const m of h.json.messages) {
      expect(m.id).toMatch(/^msg_/);
      expect(new Date(m.timestamp).toISOString()).toBe(m.timestamp);
    }
  });

  it('answers 404 for an unknown session and 403 for another account’s', async () => {
    const s = await start({ latency: 'none' });
    const flow = await flowOf(s, s.tokens.pro);
    const ses = (await call(s.baseUrl, 'POST', '/sessions', { token: s.tokens.pro, body: { flow_id: flow } })).json;
    expect((await call(s.baseUrl, 'GET', '/sessions/ses_nope/history', { token: s.tokens.pro })).status).toBe(404);
    const r = await call(s.baseUrl, 'GET', `/sessions/${ses.id}/history`, { token: s.tokens.free });
    expect(r.status).toBe(403);
    expect(r.json.error.code).toBe('FORBIDDEN');
  });

  it('refuses a run whose session belongs to another flow, account, or does not exist', async () => {
    const s = await start({ latency: 'none' });
    const flows = (await call(s.baseUrl, 'GET', '/flows', { token: s.tokens.pro })).json.flows;
    const ses = (await call(s.baseUrl, 'POST', '/sessions', { token: s.tokens.pro, body: { flow_id: flows[0].id } })).json;
    const wrongFlow = await call(s.baseUrl, 'POST', `/flows/${flows[1].id}/run`, { token: s.tokens.pro, body: { input: 'x', session_id: ses.id } });
    expect(wrongFlow.status).toBe(400);
    expect(wrongFlow.json.error.details.field).toBe('session_id');
    const missing = await call(s.baseUrl, 'POST', `/flows/${flows[0].id}/run`, { token: s.tokens.pro, body: { input: 'x', session_id: 'ses_nope' } });
    expect(missing.status).toBe(404);
  });
});
