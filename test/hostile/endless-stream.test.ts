/**
 * Streams a hostile target never ends: one `data:` line that never ends, and endless tiny
 * events. Each stream fails as MALFORMED_BODY at the stream cap, and memory stays bounded
 * (before the cap, an endless line reached 3.5 GB and a V8 abort).
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createClient } from '../../src/api/index.js';
import { MAX_STREAM_BYTES } from '../../src/api/sse-stream.js';

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r));
});

/** Writes `piece` whenever the socket drains, until the client goes away. */
function flood(res: ServerResponse, piece: string): void {
  const write = (): void => {
    while (!res.destroyed && res.write(piece));
    if (!res.destroyed) res.once('drain', write);
  };
  write();
}

async function serve(first: string, piece: string): Promise<string> {
  server = createServer((req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(first);
    flood(res, piece);
  });
  await new Promise<void>((r) => (server as Server).listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as { port: number }).port}/v1`;
}

describe('endless streams', () => {
  it.each([
    ['one data: line that never ends', 'data: ', 'x'.repeat(64 * 1024)],
    ['endless tiny token events', 'data: {"type":"start","run_id":"r"}\n\n', 'data: {"type":"token","content":"a"}\n\n'.repeat(512)],
  ])('%s: fails as MALFORMED_BODY at the cap, memory bounded', async (_name, first, piece) => {
    const baseUrl = await serve(first, piece);
    const client = createClient({ baseUrl, token: 'fg_endless_token', timeouts: { bodyMs: 60_000 } });
    const before = process.memoryUsage().rss;
    const results = await Promise.all([1, 2, 3].map(() => client.stream('flow_1', { input: 'hi' })));
    const grownMb = (process.memoryUsage().rss - before) / 2 ** 20;
    await client.close();
    for (const r of results) {
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.error.code).toBe('MALFORMED_BODY');
    }
    // Three streams at an 8 MiB cap: well under the gigabytes an uncapped stream reached.
    expect(grownMb).toBeLessThan(3 * (MAX_STREAM_BYTES / 2 ** 20) * 6);
  });
});
