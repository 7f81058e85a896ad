/**
 * A call's `validate` mode: `full` checks every 2xx body; `sample` one body in 16, the first of
 * each 16 the client judges (deterministic); `off` none, not even whether the body is JSON.
 * Unchecked bodies are still read when their value is (a run's status, a journey's save).
 */
import { describe, expect, it } from 'vitest';
import { VALIDATE_SAMPLE_EVERY, type Client } from '../../src/api/index.js';
import * as fx from './fixtures.js';
import { sendJson, serveEach, type TestServer } from './test-server.js';

let server: TestServer;
let client: Client;

serveEach((s, c) => {
  server = s;
  client = c;
});

/** Every answer a different run whose usage breaks the contract. */
function brokenRuns(): void {
  let n = 0;
  server.handler = (_req, res) => sendJson(res, 200, { ...fx.run, id: `run_${n++}`, usage: { ...fx.usage, total_tokens: 'x' } });
}

describe('validate mode of a call', () => {
  it('full (the default) checks every body', async () => {
    brokenRuns();
    for (let i = 0; i < 4; i++) {
      const r = await client.run('f', { input: 'x' }, i % 2 === 0 ? undefined : { validate: 'full' });
      expect(r.violations).toHaveLength(1);
    }
  });

  it('sample checks the 1st, 17th, 33rd… body and still returns every value', async () => {
    brokenRuns();
    const checked: number[] = [];
    for (let i = 0; i < 2 * VALIDATE_SAMPLE_EVERY + 1; i++) {
      const r = await client.run('f', { input: 'x' }, { validate: 'sample' });
      expect(r.ok && r.value.id).toBe(`run_${i}`);
      if (r.violations.length > 0) checked.push(i);
    }
    expect(VALIDATE_SAMPLE_EVERY).toBe(16);
    expect(checked).toEqual([0, 16, 32]);
  });

  it('off checks nothing, not even JSON, and parses a value only when read', async () => {
    brokenRuns();
    const r = await client.run('f', { input: 'x' }, { validate: 'off' });
    expect(r.ok).toBe(true);
    expect(r.violations).toEqual([]);
    expect(r.ok && r.value.status).toBe('completed');
    server.handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '9' });
      res.end('not json!');
    };
    const t = await client.getFlow('f', { validate: 'off' });
    expect(t.ok).toBe(true);
    expect(t.violations).toEqual([]);
    expect(t.ok && t.value).toBeUndefined();
    const full = await client.getFlow('f');
    expect(full.ok).toBe(false);
  });

  it('off still reads an error body for its code', async () => {
    server.handler = (_req, res) => sendJson(res, 404, fx.errorBody('NOT_FOUND'));
    const r = await client.getFlow('nope', { validate: 'off' });
    expect(r.ok).toBe(false);
    expect(!r.ok && r.error.code).toBe('NOT_FOUND');
  });
});
