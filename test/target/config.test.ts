import { inspect } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/core/errors.js';
import { DEFAULT_TOKENS, parseReferenceConfig, resolveReferenceOptions, startReferenceService } from '../../src/target/index.js';
import { call, closeAll, start } from './helpers.js';

afterEach(closeAll);

function issuesOf(fn: () => unknown): Array<{ path: string; message: string }> {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return [...(err as ConfigError).issues];
  }
  throw new Error('expected a ConfigError');
}

describe('parseReferenceConfig', () => {
  it('accepts a file-shaped object and maps tier "enterprise"', () => {
    const o = parseReferenceConfig({
      port: 0,
      seed: 7,
      tokens: { file_token_1: { account: 'acme', tier: 'enterprise' }, file_token_2: { account: 'acme', tier: 'free' } },
      rateLimit: { windowMs: '1m', reset: 'epoch-seconds' },
      latency: { ttftMs: '50ms', tokens: { min: 4, max: 6 } },
      runMode: 'async',
      notifications: [{ webhook_url: 'http://127.0.0.1:9/hook', events: ['flow.completed'], secret: 's' }],
      faults: { errors: { run: { rate: 0.1 } } },
    });
    expect(o.tokens?.file_token_1?.tier).toEqual({ limitPerMinute: 100_000 });
    expect(o.tokens?.file_token_2?.tier).toBe('free');
    const r = resolveReferenceOptions(o);
    expect(r.rateLimit).toEqual({ windowMs: 60_000, reset: 'epoch-seconds', headers: true });
    expect(r.latency.ttftNs).toBe(50e6);
    expect(r.accounts).toEqual(['acme']);
  });

  it('lists every problem with its path, never a token', () => {
    const issues = issuesOf(() =>
      parseReferenceConfig({
        port: -1,
        bogus: true,
        tokens: { 'secret token value': { account: '', tier: 'gold' } },
        latency: { jitter: 2, tokens: { min: 5, max: 2 } },
        flows: 'many',
        notifications: [{ webhook_url: 'ftp://x', events: ['nope'], secret: '' }],
        faults: { errors: { run: { rate: 2 } }, outage: 'soon' },
        clock: {},
      }),
    );
    expect(issues.map((i) => i.path).sort()).toEqual(
      [
        'bogus',
        'clock',
        'faults.errors.run.rate',
        'faults.outage',
        'flows',
        'latency.jitter',
        'latency.tokens.max',
        'notifications[0].events[0]',
        'notifications[0].secret',
        'notifications[0].webhook_url',
        'port',
        'tokens[0] (key)',
        'tokens[0].account',
        'tokens[0].tier',
      ].sort(),
    );
    expect(JSON.stringify(issues)).not.toContain('secret token value');
  });

  it('rejects a non-object', () => {
    expect(issuesOf(() => parseReferenceConfig([]))).toEqual([{ path: '', message: 'must be an object' }]);
  });
});

describe('startReferenceService options', () => {
  it('throws ConfigError for invalid options before listening', async () => {
    await expect(startReferenceService({ runMode: 'later' as 'sync', failureRate: 3 })).rejects.toThrow(ConfigError);
  });

  it('uses the default tokens on two accounts', async () => {
    const s = await start({ latency: 'none' });
    expect({ free: s.tokens.free, pro: s.tokens.pro, enterprise: s.tokens.enterprise }).toEqual(DEFAULT_TOKENS);
    expect(s.baseUrl).toBe(`http://127.0.0.1:${s.port}/v1`);
    expect(s.webhookHost).toBe(`http://127.0.0.1:${s.port}`);
  });

  it('keeps tokens out of inspect and JSON of the service', async () => {
    const s = await start({ latency: 'none', adminToken: 'adm_hidden_value' });
    for (const text of [inspect(s, { depth: 5 }), JSON.stringify(s), inspect(s.tokens), JSON.stringify(s.tokens)]) {
      expect(text).not.toContain(DEFAULT_TOKENS.pro);
      expect(text).not.toContain('adm_hidden_value');
    }
    expect(s.adminToken).toBe('adm_hidden_value');
  });

  it('seeds the given flows and per-account counts', async () => {
    const s = await start({ latency: 'none', flows: 4 });
    expect((await call(s.baseUrl, 'GET', '/flows?status=published', { token: s.tokens.free })).json.total).toBe(3);
    expect((await call(s.baseUrl, 'GET', '/flows?status=draft', { token: s.tokens.free })).json.total).toBe(1);
    const t = await start({
      latency: 'none',
      tokens: { only_tok: { account: 'x', tier: 'pro' } },
      flows: [{ id: 'flow_custom', account: 'x', name: 'Custom', input_schema: { type: 'object', properties: { q: { type: 'string' } } } }],
    });
    expect(t.tokens).toMatchObject({ pro: 'only_tok', free: '', enterprise: '' });
    const f = await call(t.baseUrl, 'GET', '/flows/flow_custom', { token: 'only_tok' });
    expect(f.json).toMatchObject({ id: 'flow_custom', name: 'Custom', status: 'published', config: { input_schema: { properties: { q: { type: 'string' } } } } });
  });

  it('is deterministic for a seed', async () => {
    const a = await start({ latency: 'none', seed: 5 });
    const b = await start({ latency: 'none', seed: 5 });
    const c = await start({ latency: 'none', seed: 6 });
    const ids = async (s: typeof a) => (await call(s.baseUrl, 'GET', '/flows', { token: s.tokens.pro })).json.flows.map((f: { id: string }) => f.id);
    expect(await ids(a)).toEqual(await ids(b));
    expect(await ids(a)).not.toEqual(await ids(c));
  });

  it('closes cleanly with streams and timers pending', async () => {
    const s = await startReferenceService({ latency: { ttftMs: 10_000 } });
    const flow = (await call(s.baseUrl, 'GET', '/flows', { token: s.tokens.pro })).json.flows[0].id;
    const pending = call(s.baseUrl, 'POST', `/flows/${flow}/run`, { token: s.tokens.pro, body: { input: 'x' } }).catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 20));
    await s.close();
    expect(await pending).toBeInstanceOf(Error);
    await expect(call(s.baseUrl, 'GET', '/flows')).rejects.toThrow();
  });
});
