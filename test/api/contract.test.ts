import { describe, expect, it } from 'vitest';
import { createClient, type Client } from '../../src/api/index.js';
import * as fx from './fixtures.js';
import { sendJson, serveEach, TEST_TRANSPORT, type TestServer } from './test-server.js';

let server: TestServer;
let client: Client;

serveEach((s, c) => {
  server = s;
  client = c;
});

function answer(body: unknown): void {
  server.handler = (_req, res) => sendJson(res, 200, body);
}

describe('contract violations', () => {
  it('a mistyped usage.total_tokens is reported and the value still returned', async () => {
    answer({ ...fx.run, usage: { ...fx.usage, total_tokens: '30' } });
    const r = await client.run('f', { input: 'x' });
    expect(r.ok).toBe(true);
    expect(r.ok && r.value.output).toBe('hello');
    expect(r.violations).toEqual([{ op: 'run', path: 'usage.total_tokens', expected: 'integer', got: 'string' }]);
  });

  it('a fractional integer field quotes the value', async () => {
    answer({ ...fx.runStatus, progress: 40.5 });
    const r = await client.getRun('r');
    expect(r.violations).toEqual([{ op: 'getRun', path: 'progress', expected: 'integer', got: '40.5' }]);
  });

  it('a list item without endpoint is reported by index', async () => {
    const items = [fx.flowItem(0), fx.flowItem(1), fx.flowItem(2), { ...fx.flowItem(3), endpoint: undefined }];
    answer({ flows: items, total: 4, limit: 20, offset: 0 });
    const r = await client.listFlows();
    expect(r.ok && r.value.flows).toHaveLength(4);
    expect(r.violations).toEqual([{ op: 'listFlows', path: 'flows[3].endpoint', expected: 'URL', got: 'missing' }]);
  });

  it('an endpoint of the wrong type names the type', async () => {
    answer({ flows: [{ ...fx.flowItem(0), endpoint: 42 }], total: 1, limit: 20, offset: 0 });
    const r = await client.listFlows();
    expect(r.violations).toEqual([{ op: 'listFlows', path: 'flows[0].endpoint', expected: 'URL', got: 'number' }]);
  });

  it('an unknown message role names the allowed values', async () => {
    answer({ ...fx.history, messages: [...fx.history.messages, { id: 'm3', role: 'system', content: 'x', timestamp: fx.TS }] });
    const r = await client.getHistory('s');
    expect(r.ok).toBe(true);
    expect(r.violations).toEqual([{ op: 'getHistory', path: 'messages[2].role', expected: 'one of user|assistant', got: '"system"' }]);
  });

  it('an unknown run status and a bad timestamp are reported', async () => {
    answer({ ...fx.runStatus, status: 'done', created_at: 'yesterday' });
    const r = await client.getRun('r');
    expect(r.violations).toEqual([
      { op: 'getRun', path: 'status', expected: 'one of running|completed|failed', got: '"done"' },
      { op: 'getRun', path: 'created_at', expected: 'ISO 8601 timestamp', got: '"yesterday"' },
    ]);
  });

  it('the run status read must carry error, null when none', async () => {
    const { error: _error, ...withoutError } = fx.runStatus;
    answer(withoutError);
    const r = await client.getRun('r');
    expect(r.violations).toEqual([{ op: 'getRun', path: 'error', expected: 'present', got: 'missing' }]);
  });

  it('extra fields are allowed everywhere', async () => {
    answer({ ...fx.usageStats, extra: 1, metrics: { ...fx.usageStats.metrics, p99: 3 } });
    const r = await client.getUsage();
    expect(r.violations).toEqual([]);
  });

  it('flow config schemas are checked', async () => {
    answer({ ...fx.flow, config: { input_schema: { type: 'object' } } });
    const r = await client.getFlow('f');
    expect(r.violations).toEqual([{ op: 'getFlow', path: 'config.output_schema', expected: 'object', got: 'missing' }]);
  });

  it('session and trigger answers are checked', async () => {
    answer({ ...fx.session, metadata: 'none', user_id: null });
    const s = await client.createSession({});
    expect(s.violations).toEqual([{ op: 'createSession', path: 'metadata', expected: 'object', got: 'string' }]);
    answer({ message: 'ok' });
    const t = await client.trigger('f', {});
    expect(t.violations).toEqual([{ op: 'trigger', path: 'status', expected: 'string', got: 'missing' }]);
  });

  it('validate: false skips the checks but still returns the value', async () => {
    const c = createClient({ baseUrl: `${server.origin}/v1`, token: fx.TOKEN, validate: false, transport: TEST_TRANSPORT });
    try {
      answer({ ...fx.run, usage: { total_tokens: 'x' } });
      const r = await c.run('f', { input: 'x' });
      expect(r.ok).toBe(true);
      expect(r.violations).toEqual([]);
    } finally {
      await c.close();
    }
  });
});
