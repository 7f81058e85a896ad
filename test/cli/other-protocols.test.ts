/**
 * `flowgauge run` pointed at targets that speak something else, or answer in another shape:
 * each ends at once with a message that says what the target sent, never a stack trace and
 * never a wait for the headers timeout.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';

const dir = mkdtempSync(join(tmpdir(), 'fg-protocols-'));
const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A raw server that runs `onRequest` for each request head it receives on a connection. */
async function rawServer(onConnect: (socket: Socket) => void, onRequest?: (socket: Socket, n: number) => void): Promise<string> {
  const server = createServer((socket) => {
    socket.on('error', () => {});
    onConnect(socket);
    let n = 0;
    let pending = '';
    socket.on('data', (d) => {
      pending += d.toString('latin1');
      while (pending.includes('\r\n\r\n')) {
        const head = pending.slice(0, pending.indexOf('\r\n\r\n') + 4);
        const length = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? 0);
        if (pending.length < head.length + length) break;
        pending = pending.slice(head.length + length);
        onRequest?.(socket, n++);
      }
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return `http://127.0.0.1:${address.port}/v1`;
}

const scenario = join(dir, 'list.json');
writeFileSync(scenario, JSON.stringify({ name: 'list', tier: 'pro', load: { rate: '20/s', duration: '500ms' }, mix: [{ op: 'listFlows' }] }));
const FLOW = { id: 'flow_1', name: 'f', description: 'd', status: 'published', created_at: '2026-01-01T00:00:00Z', updated_at: '2026-01-01T00:00:00Z', endpoint: 'http://127.0.0.1/v1/flows/flow_1/run' };
const FLOWS = JSON.stringify({ flows: [FLOW], total: 1, limit: 20, offset: 0 });
const answer = (body: string, extra = ''): string => `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${extra}${body}`;

async function run(baseUrl: string, out: string): Promise<{ code: number; err: string; out: string; ms: number }> {
  const io = memoryIo({ cwd: dir });
  const t0 = performance.now();
  const code = await main(['run', scenario, '--base-url', baseUrl, '--token', 'fg_protocol_token', '--out', join(dir, out), '--quiet'], io);
  return { code, err: io.err(), out: io.out(), ms: performance.now() - t0 };
}

describe('targets that speak something else', () => {
  const cases: [string, (s: Socket) => void, RegExp][] = [
    ['an SSH banner at connect', (s) => s.write('SSH-2.0-OpenSSH_9.2p1\r\n'), /the target sent "SSH-2.0-OpenSSH_9.2p1\\r\\n"/],
    ['an HTML page with no status line', (s) => s.once('data', () => s.end('<!doctype html><html><body>gateway</body></html>')), /the target sent "<!doctype html>/],
    ['an HTTP/2 SETTINGS frame', (s) => s.write(Buffer.from([0, 0, 0x12, 4, 0, 0, 0, 0, 0])), /the target sent "\\x00\\x00\\x12\\x04/],
    ['status 099', (s) => s.once('data', () => s.write('HTTP/1.1 099 Odd\r\n')), /status 099 is outside 100–599/],
    ['a head ended by bare LF', (s) => s.once('data', () => s.write(`HTTP/1.1 200 OK\nContent-Length: ${FLOWS.length}\n\n${FLOWS}`)), /bare LF/],
  ];
  it.each(cases)('%s: exit 76 (EX_PROTOCOL, not 3 for unreachable) with what it sent, no wait', async (_name, onConnect, said) => {
    const r = await run(await rawServer(onConnect), 'protocol');
    expect(r.code).toBe(76);
    expect(r.err).toContain('answered, but not with HTTP/1.1');
    expect(r.err).toMatch(said);
    expect(r.err).not.toMatch(/could not be reached|HEADERS_TIMEOUT|internal error|\n\s+at /);
    // The answer came from the first bytes, not the 30 s headers timeout: the message says which
    // (no HEADERS_TIMEOUT above), so no wall-clock bound is needed.
  });

  it('valid answers each preceded by a stray CRLF on the kept connection: no error at all', async () => {
    const base = await rawServer(() => {}, (s, n) => s.write(`${n === 0 ? '' : '\r\n'}${answer(FLOWS)}`));
    const r = await run(base, 'crlf');
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/listFlows\s+10\s+100%/);
    expect(r.out).not.toContain('contract violations');
  });

  it('answers of the wrong shape for every operation during a run are counted as contract violations, never a crash', async () => {
    const shapes = [{ weird: 1 }, { id: 5, status: 'maybe', messages: 'no', total: 'x', usage: 'lots', flows: 7 }, { id: null, data: [] }];
    let n = 0;
    // The first flow list is right (so the run starts); every other answer has another shape.
    const base = await rawServer(() => {}, (s) => s.write(answer(n++ === 0 ? FLOWS : JSON.stringify(shapes[n % shapes.length]))));
    const io = memoryIo({ cwd: dir });
    const out = join(dir, 'wrong-shapes');
    const code = await main(['run', 'smoke', '--base-url', base, '--token', 'fg_protocol_token', '--out', out, '--quiet', '-d', '1s', '--rate', '60/s'], io);
    expect(io.err()).not.toMatch(/TypeError|internal error|\n\s+at /);
    expect(code).toBe(1);
    const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as { contractViolationTotals: { total: number }; ops: Record<string, { count: number; bad: number }> };
    expect(report.contractViolationTotals.total).toBeGreaterThan(0);
    for (const op of ['run', 'getRun', 'listFlows', 'getFlow', 'createSession', 'getHistory', 'getUsage']) {
      expect(report.ops[op]?.count, op).toBeGreaterThan(0);
      expect(report.ops[op]?.bad, op).toBe(report.ops[op]?.count);
    }
  });

  it('a 200 whose JSON has another shape: a clear exit 76 naming the field, no TypeError', async () => {
    const body = JSON.stringify({ data: [] });
    const r = await run(await rawServer(() => {}, (s) => s.write(answer(body))), 'shape');
    expect(r.code).toBe(76);
    expect(r.err).toContain('answered GET /flows with a body of another shape: "flows" is missing, not an array (got keys "data")');
    expect(r.err).not.toMatch(/TypeError|internal error|\n\s+at /);
  });

  it('a 200 whose body is not JSON at all (an HTML page): exit 76, not unreachable', async () => {
    const page = '<!doctype html><html><body>welcome</body></html>';
    const r = await run(await rawServer(() => {}, (s) => s.write(`HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: ${page.length}\r\n\r\n${page}`)), 'html');
    expect(r.code).toBe(76);
    expect(r.err).toContain('answered GET /flows with HTTP 200 and a body of another shape (MALFORMED_BODY');
  });

  it("a web server's 404 page at the base URL: exit 76, this is not the interface (check the path), not 3 (is the service up?)", async () => {
    const page = '<!doctype html><html><body><h1>404 Not Found</h1></body></html>';
    const notFound = `HTTP/1.1 404 Not Found\r\nContent-Type: text/html\r\nContent-Length: ${page.length}\r\n\r\n${page}`;
    const r = await run(await rawServer(() => {}, (s) => s.write(notFound)), 'not-found');
    expect(r.code).toBe(76);
    expect(r.err).toContain("answered GET /flows with HTTP 404 and a page that is not the interface's (HTML?): this is not the interface; check the path of --base-url");
    expect(r.err).not.toMatch(/could not be reached|is the service|internal error/);
    // A gateway's 502 page is another matter: its service is down (exit 3, test/e2e/nginx-gateway.test.ts).
    const bad = `HTTP/1.1 502 Bad Gateway\r\nContent-Type: text/html\r\nContent-Length: ${page.length}\r\n\r\n${page}`;
    expect((await run(await rawServer(() => {}, (s) => s.write(bad)), 'bad-gateway')).code).toBe(3);
  });

  it('conformance and capacity say the same: exit 76 for another protocol, 3 for nothing at all', async () => {
    const ssh = await rawServer((s) => s.write('SSH-2.0-OpenSSH_9.2p1\r\n'));
    for (const argv of [
      ['conformance', '--base-url', ssh, '--token', 'fg_protocol_token', '--out', join(dir, 'conf-ssh'), '--quiet'],
      ['capacity', 'listFlows', '--base-url', ssh, '--token', 'fg_protocol_token', '--out', join(dir, 'cap-ssh'), '--step', '1s', '--max-concurrency', '1'],
    ]) {
      const io = memoryIo({ cwd: dir });
      expect(await main(argv, io), `${argv[0]}: ${io.err()}${io.out()}`).toBe(76);
    }
    const io = memoryIo({ cwd: dir });
    expect(await main(['conformance', '--base-url', 'http://127.0.0.1:9/v1', '--token', 't', '--out', join(dir, 'conf-down'), '--quiet'], io)).toBe(3);
  });
});
