/**
 * Probing over HTTPS. The reference service speaks plain HTTP, so a TLS-terminating proxy made
 * here (node:tls in front of the service's port) serves it with a self-signed certificate made
 * with openssl. Without openssl the tests are skipped loudly, except under CI=true, where they fail.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { join } from 'node:path';
import { createServer as createTlsServer, type SecureVersion, type Server as TlsServer } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProbeRunner } from '../../src/probe/index.js';
import { startReferenceService, type ReferenceService } from '../../src/target/index.js';
import { removeTempDirs, tempDir } from './helpers.js';

function hasOpenssl(): boolean {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const OPENSSL = hasOpenssl();
if (!OPENSSL) {
  if (process.env.CI === 'true') throw new Error('openssl is required for the TLS probe tests under CI');
  process.stderr.write('\n*** SKIPPING the TLS probe tests: openssl was not found on PATH ***\n\n');
}

let svc: ReferenceService;
let key = '';
let cert = '';
const proxies: TlsServer[] = [];
const sockets = new Set<Socket>();

/** A TLS front for the service at `127.0.0.1:<port>`. */
async function tlsProxy(maxVersion: SecureVersion): Promise<string> {
  const server = createTlsServer({ key, cert, maxVersion }, (client) => {
    const upstream = connect(svc.port, '127.0.0.1');
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream).pipe(client);
  });
  proxies.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return `https://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
}

beforeAll(async () => {
  if (!OPENSSL) return;
  const dir = tempDir('flowgauge-probe-tls-');
  const keyFile = join(dir, 'key.pem');
  const certFile = join(dir, 'cert.pem');
  execFileSync(
    'openssl',
    ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '30', '-subj', '/CN=localhost', '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost', '-keyout', keyFile, '-out', certFile],
    { stdio: 'ignore' },
  );
  key = readFileSync(keyFile, 'utf8');
  cert = readFileSync(certFile, 'utf8');
  svc = await startReferenceService({ latency: 'none' });
});

afterAll(async () => {
  for (const s of sockets) s.destroy();
  await Promise.all(proxies.map((p) => new Promise<void>((r) => p.close(() => r()))));
  await svc?.close();
  removeTempDirs();
});

describe.skipIf(!OPENSSL)('probing over HTTPS', () => {
  it('records TLS 1.3 and about 30 days to certificate expiry, trusting the CA given', async () => {
    const baseUrl = await tlsProxy('TLSv1.3');
    const runner = createProbeRunner({ target: { baseUrl, token: svc.tokens.pro, tls: { ca: cert } }, checks: ['listFlows', 'stream', 'trigger'] });
    const { records } = await runner.runRound();
    expect(records.map((r) => [r.check, r.success])).toEqual([
      ['listFlows', true],
      ['stream', true],
      ['trigger', true],
    ]);
    for (const r of records) {
      expect(r.tls).toMatchObject({ version: 'TLSv1.3', versionOk: true, authorized: true });
      expect(r.tls?.certDaysLeft).toBeGreaterThan(29);
      expect(r.tls?.certDaysLeft).toBeLessThanOrEqual(30.01);
      expect(r.phasesMs.tls).toBeGreaterThanOrEqual(0);
      expect(Date.parse(r.tls?.certValidTo as string)).toBeGreaterThan(Date.now());
    }
  });

  it('fails a certificate it cannot verify, unless told to accept it', async () => {
    const baseUrl = await tlsProxy('TLSv1.3');
    const strict = createProbeRunner({ target: { baseUrl, token: svc.tokens.pro }, checks: ['listFlows'] });
    expect((await strict.runRound()).records[0]).toMatchObject({ success: false, status: 0, error: 'TLS_ERROR' });
    const insecure = createProbeRunner({ target: { baseUrl, token: svc.tokens.pro, tls: { rejectUnauthorized: false } }, checks: ['listFlows'] });
    const [r] = (await insecure.runRound()).records;
    expect(r).toMatchObject({ success: true, tls: { version: 'TLSv1.3', versionOk: true, authorized: false } });
  });

  it('flags a version below TLS 1.3 against the stated target, without failing the check', async () => {
    const baseUrl = await tlsProxy('TLSv1.2');
    const runner = createProbeRunner({ target: { baseUrl, token: svc.tokens.pro, tls: { ca: cert } }, checks: ['getFlow'] });
    const [r] = (await runner.runRound()).records;
    expect(r).toMatchObject({ success: true, tls: { version: 'TLSv1.2', versionOk: false } });
  });
});
