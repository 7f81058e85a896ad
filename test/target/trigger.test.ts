import { afterEach, describe, expect, it, vi } from 'vitest';
import { TRIGGER_RUN_HEADER } from '../../src/target/index.js';
import { call, closeAll, header, start } from './helpers.js';

afterEach(closeAll);

const FLOWS = [
  { id: 'flow_tpl', account: 'acct', template: 'Hello {name}, you have {count} items {missing}' },
  { id: 'flow_raw', account: 'acct' },
  { id: 'flow_draft', account: 'acct', status: 'draft' as const },
];
const TOKENS = { tok_trigger_test: { account: 'acct', tier: 'pro' as const } };
const FIXED = { ttftMs: 0, itlMs: 0, runOverheadMs: 0, tokens: { min: 6, max: 6 } };

describe('POST /api/v1/webhook/{flow_id}', () => {
  it('answers at once with in progress, without a token, and runs in the background', async () => {
    const s = await start({ latency: FIXED, flows: FLOWS, tokens: TOKENS });
    const r = await call(s.webhookHost, 'POST', '/api/v1/webhook/flow_raw', { body: { a: 1 } });
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ message: expect.any(String), status: 'in progress' });
    const runId = header(r, TRIGGER_RUN_HEADER);
    await vi.waitFor(async () => {
      const run = await call(s.baseUrl, 'GET', `/runs/${runId}`, { token: 'tok_trigger_test' });
      expect(run.json.status).toBe('completed');
    });
    expect(s.stats().triggers).toBe(1);
  });

  it('renders the payload with the flow’s template, or stringifies it', async () => {
    const s = await start({ latency: FIXED, flows: FLOWS, tokens: TOKENS });
    const outputOf = async (flow: string, input: string) =>
      (await call(s.baseUrl, 'POST', `/flows/${flow}/run`, { token: 'tok_trigger_test', body: { input } })).json.output;
    const triggered = async (flow: string, payload: unknown) => {
      const r = await call(s.webhookHost, 'POST', `/api/v1/webhook/${flow}`, { body: payload });
      return (await call(s.baseUrl, 'GET', `/runs/${header(r, TRIGGER_RUN_HEADER)}`, { token: 'tok_trigger_test' })).json;
    };
    const tpl = await triggered('flow_tpl', { name: 'Ada', count: 3 });
    expect(tpl.output).toBe(await outputOf('flow_tpl', 'Hello Ada, you have 3 items '));
    expect(tpl.usage.prompt_tokens).toBe(6);
    const raw = await triggered('flow_raw', { k: 'v' });
    expect(raw.output).toBe(await outputOf('flow_raw', '{"k":"v"}'));
  });

  it('answers 404 for an unknown flow, 400 for a draft and for a body that is not a JSON object', async () => {
    const s = await start({ latency: FIXED, flows: FLOWS, tokens: TOKENS });
    expect((await call(s.webhookHost, 'POST', '/api/v1/webhook/flow_nope', { body: {} })).status).toBe(404);
    const draft = await call(s.webhookHost, 'POST', '/api/v1/webhook/flow_draft', { body: {} });
    expect(draft.status).toBe(400);
    expect(draft.json.error.details.field).toBe('flow_id');
    for (const rawBody of ['[1]', 'nope', '"s"']) {
      const r = await call(s.webhookHost, 'POST', '/api/v1/webhook/flow_raw', { rawBody });
      expect(r.status).toBe(400);
      expect(r.json.error.details.field).toBe('body');
    }
  });
});
