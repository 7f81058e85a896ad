import { describe, expect, it } from 'vitest';
import { ConfigError, InvalidArgumentError } from '../../src/core/errors.js';
import { createClient, resolveClientOptions, type ClientOptions } from '../../src/api/index.js';
import { TOKEN } from './fixtures.js';

function issuesOf(options: ClientOptions): string[] {
  try {
    resolveClientOptions(options);
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return (e as ConfigError).issues.map((i) => i.path);
  }
  return [];
}

describe('client options', () => {
  it('fills the defaults', () => {
    const o = resolveClientOptions({ baseUrl: 'https://api.example.test/api/v1/', token: TOKEN });
    expect(o).toMatchObject({
      baseUrl: 'https://api.example.test/api/v1',
      basePath: '/api/v1',
      origin: 'https://api.example.test',
      webhookHost: 'https://api.example.test',
      webhookPath: '',
      connections: 64,
      pipelining: 1,
      connectMs: 10_000,
      headersMs: 30_000,
      bodyMs: 60_000,
      validate: true,
      triggerAuth: false,
    });
    expect(typeof o.clock.nowNs()).toBe('number');
    expect(JSON.stringify(Object.keys(o))).not.toContain('token');
  });

  it('reports every problem at once, by path', () => {
    const bad = {
      baseUrl: 'http://api.example.test/flows',
      token: '',
      webhookHost: 'mailto:x@y',
      connections: 0,
      pipelining: 1.5,
      timeouts: { connectMs: -1, headersMs: Number.NaN },
      validate: 'yes',
    } as unknown as ClientOptions;
    expect(issuesOf(bad)).toEqual([
      'baseUrl',
      'token',
      'webhookHost',
      'connections',
      'pipelining',
      'timeouts.connectMs',
      'timeouts.headersMs',
      'validate',
    ]);
  });

  it('rejects URLs that are not http(s), carry credentials, a query, or are not URLs', () => {
    expect(issuesOf({ baseUrl: 'ftp://h/v1', token: TOKEN })).toEqual(['baseUrl']);
    expect(issuesOf({ baseUrl: 'http://u:p@h/v1', token: TOKEN })).toEqual(['baseUrl']);
    expect(issuesOf({ baseUrl: 'http://h/v1?x=1', token: TOKEN })).toEqual(['baseUrl']);
    expect(issuesOf({ baseUrl: 'not a url', token: TOKEN })).toEqual(['baseUrl']);
    expect(issuesOf({ baseUrl: 'http://h/v2', token: TOKEN })).toEqual([]);
  });

  it('takes a transport by name; h1 only for plain http addresses', () => {
    expect(resolveClientOptions({ baseUrl: 'http://h/v1', token: TOKEN }).transport).toBe('auto');
    expect(resolveClientOptions({ baseUrl: 'http://h/v1', token: TOKEN, transport: 'undici' }).transport).toBe('undici');
    expect(issuesOf({ baseUrl: 'http://h/v1', token: TOKEN, transport: 'h2' as 'h1' })).toEqual(['transport']);
    expect(issuesOf({ baseUrl: 'https://h/v1', token: TOKEN, transport: 'h1' })).toEqual(['transport']);
    expect(issuesOf({ baseUrl: 'http://h/v1', token: TOKEN, webhookHost: 'https://hooks.example', transport: 'h1' })).toEqual(['transport']);
  });

  it('caps buffered bodies at 16 MiB unless told otherwise, and takes only a positive whole number', () => {
    expect(resolveClientOptions({ baseUrl: 'http://h/v1', token: TOKEN }).maxBodyBytes).toBe(16 * 1024 * 1024);
    expect(resolveClientOptions({ baseUrl: 'http://h/v1', token: TOKEN, maxBodyBytes: 1024 }).maxBodyBytes).toBe(1024);
    expect(issuesOf({ baseUrl: 'http://h/v1', token: TOKEN, maxBodyBytes: 0 })).toEqual(['maxBodyBytes']);
    expect(issuesOf({ baseUrl: 'http://h/v1', token: TOKEN, maxBodyBytes: 1.5 })).toEqual(['maxBodyBytes']);
  });

  it('rejects a token with control characters', () => {
    expect(issuesOf({ baseUrl: 'http://h/v1', token: 'abc\r\nx-evil: 1' })).toEqual(['token']);
  });

  it('createClient throws for programmer errors only', () => {
    expect(() => createClient(undefined as unknown as ClientOptions)).toThrow(InvalidArgumentError);
    expect(() => createClient({ baseUrl: 'http://h', token: TOKEN })).toThrow(ConfigError);
  });
});
