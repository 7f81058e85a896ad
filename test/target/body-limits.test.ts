/**
 * Request bodies the reference service refuses: nested deeper than any real one (a 500 from a
 * stack overflow before: 400 now, naming the field), and larger than the limit, declared or
 * chunked: 413 and the connection closed without reading the rest (a 10 GB body was read to its
 * end before). Raw sockets, so the test controls exactly what is sent and sees the close.
 */
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_BODY_BYTES, MAX_BODY_DEPTH } from '../../src/target/http.js';
import { call, closeAll, start } from './helpers.js';

afterEach(closeAll);

/** A raw connection: what arrived, and whether the service closed it. */
function rawConnection(baseUrl: string): { socket: Socket; text(): string; closed: Promise<void>; isOpen(): boolean } {
  const u = new URL(baseUrl);
  const socket = connect(Number(u.port), u.hostname);
  let text = '';
  let open = true;
  socket.setEncoding('latin1').on('data', (s: string) => (text += s));
  // Writes after the service closed fail with EPIPE/ECONNRESET: that is the point.
  socket.on('error', () => (open = false));
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  void closed.then(() => (open = false));
  return { socket, text: () => text, closed, isOpen: () => open };
}

const head = (token: string, extra: string): string =>
  `POST /v1/sessions HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\n${extra}\r\n`;

describe('request bodies the service refuses', () => {
  it('metadata nested 100,000 deep: 400 INVALID_REQUEST naming metadata, not 500', async () => {
    const s = await start({ latency: 'none' });
    const flow = (await call(s.baseUrl, 'GET', '/flows', { token: s.tokens.pro })).json.flows[0].id as string;
    const deep = `${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}`;
    const r = await call(s.baseUrl, 'POST', '/sessions', { token: s.tokens.pro, rawBody: `{"flow_id":"${flow}","metadata":${deep}}`, headers: { 'content-type': 'application/json' } });
    expect(r.status).toBe(400);
    expect(r.json.error).toMatchObject({ code: 'INVALID_REQUEST', details: { field: 'metadata', reason: `is nested deeper than ${MAX_BODY_DEPTH} levels of arrays and objects; the limit is ${MAX_BODY_DEPTH}` } });
    // The service is still fine.
    expect((await call(s.baseUrl, 'POST', '/sessions', { token: s.tokens.pro, body: { flow_id: flow, metadata: { a: { b: 1 } } } })).status).toBe(200);
  });

  it('a __proto__ key in a body is refused naming its field', async () => {
    const s = await start({ latency: 'none' });
    const r = await call(s.baseUrl, 'POST', '/sessions', { token: s.tokens.pro, rawBody: '{"flow_id":"f","metadata":{"__proto__":{"x":1}}}' });
    expect(r.status).toBe(400);
    expect(r.json.error.details.field).toBe('metadata');
  });

  it('a declared Content-Length of 10 GB: 413 before the body is read, and the connection closed', async () => {
    const s = await start({ latency: 'none' });
    const c = rawConnection(s.baseUrl);
    c.socket.write(head(s.tokens.pro, `Content-Length: ${10 * 1024 ** 3}\r\n`));
    c.socket.write('{"flow_id":"');
    await c.closed;
    expect(c.text()).toMatch(/^HTTP\/1\.1 413 /);
    expect(c.text()).toMatch(/connection: close/i);
    expect(c.text()).toContain('"code":"INVALID_REQUEST"');
  });

  it('a chunked body past the limit: 413 once it passes, the connection closed while the client still sends', async () => {
    const s = await start({ latency: 'none' });
    const c = rawConnection(s.baseUrl);
    c.socket.write(head(s.tokens.pro, 'Transfer-Encoding: chunked\r\n'));
    const chunk = 'x'.repeat(64 * 1024);
    let sent = 0;
    // Keeps sending (as a 10 GB upload would) until the service closes: the close must come
    // soon after the limit, not at the end of the body, which never comes.
    while (c.isOpen() && sent < 64 * MAX_BODY_BYTES) {
      await new Promise<void>((resolve) => c.socket.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`, () => resolve()));
      sent += chunk.length;
    }
    await c.closed;
    expect(c.text()).toMatch(/^HTTP\/1\.1 413 /);
    // Closed within a few MiB of the limit (what the socket buffers held), not after 64 MiB.
    expect(sent).toBeLessThan(16 * MAX_BODY_BYTES);
  });
});
