import { describe, expect, it } from 'vitest';
import { createClient, errorCodeOf } from '../../src/api/index.js';
import { classifyTransportError } from '../../src/transport/wire-errors.js';
import { TOKEN, runStatus } from './fixtures.js';
import { sendJson, startServer } from './test-server.js';

const withCode = (code: string, message = 'x'): Error => Object.assign(new Error(message), { code });

describe('classifyTransportError', () => {
  it('maps undici and socket codes', () => {
    const cases: [unknown, string][] = [
      [withCode('UND_ERR_CONNECT_TIMEOUT'), 'CONNECT_TIMEOUT'],
      [withCode('ETIMEDOUT'), 'CONNECT_TIMEOUT'],
      [withCode('UND_ERR_HEADERS_TIMEOUT'), 'HEADERS_TIMEOUT'],
      [withCode('UND_ERR_BODY_TIMEOUT'), 'BODY_TIMEOUT'],
      [withCode('ECONNREFUSED'), 'CONNECTION_REFUSED'],
      [withCode('ECONNRESET'), 'CONNECTION_RESET'],
      [withCode('EPIPE'), 'CONNECTION_RESET'],
      [withCode('UND_ERR_SOCKET', 'other side closed'), 'CONNECTION_RESET'],
      [withCode('UND_ERR_SOCKET', 'bad response'), 'SOCKET_ERROR'],
      [withCode('ENOTFOUND'), 'DNS_ERROR'],
      [withCode('EAI_AGAIN'), 'DNS_ERROR'],
      [withCode('UND_ERR_ABORTED'), 'ABORTED'],
      [Object.assign(new Error('aborted'), { name: 'AbortError' }), 'ABORTED'],
      [withCode('DEPTH_ZERO_SELF_SIGNED_CERT'), 'TLS_ERROR'],
      [withCode('ERR_TLS_CERT_ALTNAME_INVALID'), 'TLS_ERROR'],
      [withCode('ERR_SSL_WRONG_VERSION_NUMBER'), 'TLS_ERROR'],
      [withCode('CERT_HAS_EXPIRED'), 'TLS_ERROR'],
      [new AggregateError([withCode('ECONNREFUSED'), withCode('ECONNREFUSED')]), 'CONNECTION_REFUSED'],
      [Object.assign(new Error('wrapped'), { cause: withCode('ECONNRESET') }), 'CONNECTION_RESET'],
      [withCode('HPE_INVALID_CONSTANT'), 'PROTOCOL_ERROR'],
      [new Error('no code'), 'SOCKET_ERROR'],
      ['a string', 'SOCKET_ERROR'],
    ];
    for (const [err, expected] of cases) expect([String(err), classifyTransportError(err, undefined)]).toEqual([String(err), expected]);
  });

  it('an aborted signal wins over whatever was raised', () => {
    const ac = new AbortController();
    ac.abort(new Error('mine'));
    expect(classifyTransportError(withCode('ECONNRESET'), ac.signal)).toBe('ABORTED');
  });

  it('https to a plain-HTTP server is a TLS_ERROR', async () => {
    const server = await startServer((_req, res) => sendJson(res, 200, runStatus));
    const c = createClient({ baseUrl: `${server.origin.replace('http:', 'https:')}/v1`, token: TOKEN });
    try {
      expect(errorCodeOf(await c.getRun('r'))).toBe('TLS_ERROR');
    } finally {
      await c.close();
      await server.close();
    }
  });
});
