import { describe, expect, it } from 'vitest';
import type { Client } from '../../src/api/index.js';
import { BodyMemo } from '../../src/api/body-memo.js';
import * as fx from './fixtures.js';
import { sendJson, serveEach, type TestServer } from './test-server.js';

let server: TestServer;
let client: Client;

serveEach((s, c) => {
  server = s;
  client = c;
});

const bad = { flows: [fx.flowItem(0), { ...fx.flowItem(1), endpoint: undefined }], total: 2, limit: 20, offset: 0 };
const good = { flows: [fx.flowItem(0), fx.flowItem(1)], total: 2, limit: 20, offset: 0 };

describe('the same body twice', () => {
  it('gets the same verdict every time, violations included, so each response still counts', async () => {
    server.handler = (_req, res) => sendJson(res, 200, bad);
    const results = [await client.listFlows(), await client.listFlows(), await client.listFlows()];
    for (const r of results) {
      expect(r.ok).toBe(true);
      expect(r.violations).toEqual([{ op: 'listFlows', path: 'flows[1].endpoint', expected: 'URL', got: 'missing' }]);
    }
  });

  it('hands every caller its own value, parsed from that response', async () => {
    server.handler = (_req, res) => sendJson(res, 200, good);
    const a = await client.listFlows();
    const b = await client.listFlows();
    if (!a.ok || !b.ok) throw new Error('expected two answers');
    expect(b.value).toEqual(good);
    (a.value.flows as unknown[]).pop();
    expect(b.value.flows).toHaveLength(2);
    // Serialising a result still carries its value.
    expect(JSON.parse(JSON.stringify(b)).value).toEqual(good);
    expect(JSON.parse(JSON.stringify(b)).violations).toEqual([]);
  });

  it('judges a body that changed afresh, in both directions', async () => {
    const bodies = [good, bad, bad, good];
    let i = 0;
    server.handler = (_req, res) => sendJson(res, 200, bodies[i++]);
    const counts = [];
    for (let k = 0; k < bodies.length; k++) counts.push((await client.listFlows()).violations.length);
    expect(counts).toEqual([0, 1, 1, 0]);
  });

  it('keeps verdicts per operation, so one operation never answers for another', async () => {
    const memo = new BodyMemo();
    memo.keep('listFlows', '{"a":1}', []);
    expect(memo.lookup('listFlows', '{"a":1}')?.violations).toEqual([]);
    expect(memo.lookup('getFlow', '{"a":1}')).toBeUndefined();
    expect(memo.lookup('listFlows', '{"a":2}')).toBeUndefined();
  });

  it('does not keep a body too long to be worth comparing', () => {
    const memo = new BodyMemo();
    const long = `{"x":"${'a'.repeat(70_000)}"}`;
    memo.keep('getFlow', long, []);
    expect(memo.lookup('getFlow', long)).toBeUndefined();
  });
});
