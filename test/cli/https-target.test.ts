/**
 * `run` against an https target behind a private CA: --ca trusts it, --insecure skips the
 * check (and says so), and --header reaches the target without ever being printed. The TLS
 * front is a Node TLS server piping to the reference service; the certificate comes from openssl.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer as createHttpServer, type IncomingMessage } from 'node:http';
import { createServer as createTlsServer, type Server as TlsServer } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import type { Report } from '../../src/report/index.js';
import { startReferenceService, type ReferenceService } from '../../src/target/index.js';

const OPENSSL = ((): boolean => {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    if (process.env.CI === 'true') throw new Error('openssl is required for the https target tests under CI');
    process.stderr.write('\n*** SKIPPING the https target tests: openssl was not found on PATH ***\n\n');
    return false;
  }
})();

const dir = mkdtempSync(join(tmpdir(), 'fg-https-'));
const SECRET_HEADER = 'gateway-key-0123456789abcdef';
let svc: ReferenceService;
let front: TlsServer;
let baseUrl = '';
let caFile = '';
const seenKeys: string[] = [];
const sockets = new Set<Socket>();

beforeAll(async () => {
  if (!OPENSSL) return;
  const keyFile = join(dir, 'key.pem');
  caFile = join(dir, 'cert.pem');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', '/CN=localhost', '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', keyFile, '-out', caFile], { stdio: 'ignore' });
  svc = await startReferenceService({ latency: 'none' });
  front = createTlsServer({ key: readFileSync(keyFile), cert: readFileSync(caFile) }, (client) => {
    const upstream = connect(svc.port, '127.0.0.1');
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    // What the client sent, decrypted: every request head's gateway key.
    client.on('data', (d: Buffer) => {
      for (const m of d.toString('latin1').matchAll(/^(?:GET|POST) [^\r\n]*\r\n(?:[^\r\n]+\r\n)*?x-api-key: ([^\r\n]*)/gim)) seenKeys.push(m[1] as string);
    });
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((r) => front.listen(0, '127.0.0.1', () => r()));
  baseUrl = `https://127.0.0.1:${(front.address() as AddressInfo).port}/v1`;
  writeFileSync(join(dir, 'list.json'), JSON.stringify({ name: 'https', tier: 'pro', load: { rate: '20/s', duration: '300ms' }, mix: [{ op: 'listFlows' }] }));
});
afterAll(async () => {
  for (const s of sockets) s.destroy();
  await new Promise<void>((r) => (front === undefined ? r() : front.close(() => r())));
  await svc?.close();
  rmSync(dir, { recursive: true, force: true });
});

let runs = 0;
const run = async (extra: string[], env: Record<string, string> = {}) => {
  const io = memoryIo({ cwd: dir, env });
  const out = join(dir, `out-${runs++}`);
  const code = await main(['run', join(dir, 'list.json'), '--base-url', baseUrl, '--token', svc.tokens.pro, '--quiet', '--out', out, ...extra], io);
  const report = code === 0 || code === 1 ? (JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as Report) : undefined;
  return { code, out: io.out(), err: io.err(), report };
};

/** A CONNECT proxy on 127.0.0.1 that counts the tunnels it opened. */
async function startProxy(): Promise<{ url: string; tunnels: string[]; close(): Promise<void> }> {
  const tunnels: string[] = [];
  const open = new Set<Socket>();
  const proxy = createHttpServer();
  proxy.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    tunnels.push(req.url ?? '');
    const [host, port] = (req.url ?? '').split(':');
    const upstream = connect(Number(port), host as string, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client).pipe(upstream);
    });
    for (const s of [client, upstream]) {
      open.add(s);
      s.on('close', () => open.delete(s));
      s.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', () => r()));
  return {
    url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
    tunnels,
    close: async () => {
      for (const s of open) s.destroy();
      await new Promise<void>((r) => proxy.close(() => r()));
    },
  };
}

describe.skipIf(!OPENSSL)('an https target behind a private CA', () => {
  it('is refused without --ca (exit 3, the certificate named), trusted with it', async () => {
    const refused = await run([]);
    expect(refused.code).toBe(3);
    expect(refused.err).toMatch(/could not be reached: TLS_ERROR/);
    const trusted = await run(['--ca', caFile]);
    expect(trusted.err).toBe('');
    expect(trusted.code).toBe(0);
    expect(trusted.out).toMatch(/listFlows\s+6\s+100%/);
    // Every request reached a connection; the new ones show their TCP connect and TLS handshake.
    const phases = trusted.report?.ops.listFlows?.phases;
    expect(phases?.tlsMs.count).toBe(6);
    expect(phases?.tlsMs.max).toBeGreaterThan(0);
    expect(phases?.connectMs.max).toBeGreaterThan(0);
    expect(trusted.out).toMatch(/phases p50\/p95/);
  });

  it('goes through HTTPS_PROXY (a CONNECT tunnel per connection), and straight to a host NO_PROXY names', async () => {
    const proxy = await startProxy();
    try {
      const via = await run(['--ca', caFile], { HTTPS_PROXY: proxy.url });
      expect(via.code).toBe(0);
      expect(via.out).toMatch(/listFlows\s+6\s+100%/);
      expect(via.err).toContain(`https requests go through the proxy ${proxy.url}`);
      expect(proxy.tunnels.length).toBeGreaterThan(0);
      expect(proxy.tunnels.every((t) => t === new URL(baseUrl).host)).toBe(true);
      const before = proxy.tunnels.length;
      const direct = await run(['--ca', caFile], { https_proxy: proxy.url, NO_PROXY: '127.0.0.1' });
      expect(direct.code).toBe(0);
      expect(proxy.tunnels.length).toBe(before);
      const bad = await run(['--ca', caFile], { HTTPS_PROXY: 'not a url' });
      expect(bad.code).toBe(2);
      expect(bad.err).toMatch(/HTTPS_PROXY is not a URL/);
    } finally {
      await proxy.close();
    }
  });

  it('--insecure skips the check and says so', async () => {
    const r = await run(['--insecure']);
    expect(r.code).toBe(0);
    expect(r.err).toContain(`--insecure: the certificate of ${baseUrl} is not verified`);
  });

  it('--header reaches the target with every request and is never printed', async () => {
    seenKeys.length = 0;
    const r = await run(['--ca', caFile, '--header', `X-Api-Key: ${SECRET_HEADER}`]);
    expect(r.code).toBe(0);
    expect(seenKeys.length).toBeGreaterThanOrEqual(6);
    expect(seenKeys.every((k) => k === SECRET_HEADER)).toBe(true);
    expect(`${r.out}${r.err}`).not.toContain(SECRET_HEADER);
    const bad = memoryIo({ cwd: dir });
    expect(await main(['run', join(dir, 'list.json'), '--header', 'no colon here'], bad)).toBe(2);
  });
});
