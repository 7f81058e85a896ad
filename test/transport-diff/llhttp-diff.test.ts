/**
 * Differential suite: every vector served byte for byte by a raw 127.0.0.1 socket server to
 * Node's llhttp-based client, and fed to flowgauge's HTTP/1.1 parser whole and split at every
 * byte. The outcome classes (an answer with the same status and body, or an error) must agree;
 * each deliberate difference is named in docs/http-strictness.md with its reason.
 */
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { H1ResponseParser } from '../../src/transport/h1-parser.js';
import { VECTORS, type Vector } from './vectors.js';

type Outcome = { readonly kind: 'answer'; readonly status: number; readonly body: string } | { readonly kind: 'error' };

let server: Server;
let port = 0;
let current = '';

beforeAll(async () => {
  server = createServer((socket) => {
    socket.on('error', () => {});
    socket.once('data', () => socket.end(Buffer.from(current, 'latin1')));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as { port: number }).port;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

/** What Node's client (llhttp) makes of the vector. */
function viaLlhttp(v: Vector): Promise<Outcome> {
  current = v.wire;
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path: '/', agent: false, timeout: 5000 }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (d: Buffer) => parts.push(d));
      res.on('end', () => resolve(res.complete ? { kind: 'answer', status: res.statusCode ?? 0, body: Buffer.concat(parts).toString('latin1') } : { kind: 'error' }));
      res.on('error', () => resolve({ kind: 'error' }));
      res.on('aborted', () => resolve({ kind: 'error' }));
    });
    req.on('error', () => resolve({ kind: 'error' }));
    // A 101 is an upgrade, not an answer, to Node as to flowgauge.
    req.on('upgrade', (_res, socket) => {
      socket.destroy();
      resolve({ kind: 'error' });
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.end();
  });
}

/** What flowgauge's parser makes of the vector, fed in pieces cut at `cuts`, then the close. */
function viaFlowgauge(wire: Buffer, cuts: readonly number[]): Outcome {
  let status = 0;
  let body = '';
  let done = false;
  const p = new H1ResponseParser({
    onHead: (h) => (status = h.status),
    onBody: (buf, s, e) => (body += buf.toString('latin1', s, e)),
    onComplete: () => (done = true),
  });
  p.expect(false);
  let from = 0;
  for (const to of [...cuts, wire.length]) {
    // A fresh copy per piece, as a socket read is.
    if (p.execute(Buffer.from(wire.subarray(from, to)), 0, to - from) !== undefined) return { kind: 'error' };
    from = to;
    if (done) break;
  }
  if (!done && p.eof() !== undefined) return { kind: 'error' };
  return done ? { kind: 'answer', status, body } : { kind: 'error' };
}

describe('flowgauge and llhttp on the same bytes', () => {
  it.each(VECTORS.map((v) => [v.name, v] as const))('%s', async (_name, v) => {
    const wire = Buffer.from(v.wire, 'latin1');
    const whole = viaFlowgauge(wire, []);
    // Every split gives the answer the whole gives.
    for (let cut = 1; cut < wire.length; cut++) expect(viaFlowgauge(wire, [cut]), `split at ${cut}`).toEqual(whole);
    expect(viaFlowgauge(wire, Array.from({ length: wire.length - 1 }, (_, i) => i + 1)), 'byte by byte').toEqual(whole);
    const node = await viaLlhttp(v);
    if (v.differs === undefined) expect(whole).toEqual(node);
    else expect(whole, `a listed difference (${v.differs}) that no longer differs: drop it from the list`).not.toEqual(node);
  });

  it('lists every deliberate difference, with its reason, in docs/http-strictness.md', () => {
    const doc = readFileSync('docs/http-strictness.md', 'utf8');
    for (const id of new Set(VECTORS.flatMap((v) => (v.differs === undefined ? [] : [v.differs])))) expect(doc).toContain(`\`${id}\``);
  });
});
