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
import { createServer as createTlsServer, type Server as TlsServer } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
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

const run = async (...extra: string[]) => {
  const io = memoryIo({ cwd: dir });
  const code = await main(['run', join(dir, 'list.json'), '--base-url', baseUrl, '--token', svc.tokens.pro, '--quiet', '--out', join(dir, `out-${extra.length}`), ...extra], io);
  return { code, out: io.out(), err: io.err() };
};

describe.skipIf(!OPENSSL)('an https target behind a private CA', () => {
  it('is refused without --ca (exit 3, the certificate named), trusted with it', async () => {
    const refused = await run();
    expect(refused.code).toBe(3);
    expect(refused.err).toMatch(/could not be reached: TLS_ERROR/);
    const trusted = await run('--ca', caFile);
    expect(trusted.err).toBe('');
    expect(trusted.code).toBe(0);
    expect(trusted.out).toMatch(/listFlows\s+6\s+100%/);
  });

  it('--insecure skips the check and says so', async () => {
    const r = await run('--insecure');
    expect(r.code).toBe(0);
    expect(r.err).toContain(`--insecure: the certificate of ${baseUrl} is not verified`);
  });

  it('--header reaches the target with every request and is never printed', async () => {
    seenKeys.length = 0;
    const r = await run('--ca', caFile, '--header', `X-Api-Key: ${SECRET_HEADER}`);
    expect(r.code).toBe(0);
    expect(seenKeys.length).toBeGreaterThanOrEqual(6);
    expect(seenKeys.every((k) => k === SECRET_HEADER)).toBe(true);
    expect(`${r.out}${r.err}`).not.toContain(SECRET_HEADER);
    const bad = memoryIo({ cwd: dir });
    expect(await main(['run', join(dir, 'list.json'), '--header', 'no colon here'], bad)).toBe(2);
  });
});
