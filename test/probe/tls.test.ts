/**
 * Probing over HTTPS. The reference service speaks plain HTTP, so a TLS-terminating proxy made
 * here (node:tls in front of the service's port) serves it with a self-signed certificate made
 * with openssl. Without openssl the tests are skipped loudly, except under CI=true, where they fail.
 */
import { execFile, execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { join, resolve } from 'node:path';
import { createServer as createTlsServer, type SecureVersion, type Server as TlsServer } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProbeMetrics } from '../../src/export/probe-metrics.js';
import { createProbeRunner } from '../../src/probe/index.js';
import { PROBE_METRICS } from '../../src/slo/metric-names.js';
import { parseExposition, valueOf } from '../export/helpers/exposition.js';
import { startReferenceService, type ReferenceService } from '../../src/target/index.js';
import { removeTempDirs, tempDir } from './helpers.js';
import { CLI_BIN } from '../reliability/cli-process.js';

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
/** A certificate two days from expiry, for the certificate minimum. */
let shortKey = '';
let shortCert = '';
const proxies: TlsServer[] = [];
const sockets = new Set<Socket>();

/** A TLS front for the service at `127.0.0.1:<port>`. */
async function tlsProxy(maxVersion: SecureVersion, pair: { key: string; cert: string } = { key, cert }): Promise<string> {
  const server = createTlsServer({ ...pair, maxVersion }, (client) => {
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
  execFileSync(
    'openssl',
    ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', '/CN=localhost', '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', `${keyFile}.2d`, '-out', `${certFile}.2d`],
    { stdio: 'ignore' },
  );
  shortKey = readFileSync(`${keyFile}.2d`, 'utf8');
  shortCert = readFileSync(`${certFile}.2d`, 'utf8');
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

  it('flags a certificate with 2 days left, under the 14-day minimum, without counting the good answer as down, and exports when it expires', async () => {
    const baseUrl = await tlsProxy('TLSv1.3', { key: shortKey, cert: shortCert });
    const metrics = createProbeMetrics({ target: new URL(baseUrl).host });
    const runner = createProbeRunner({ target: { baseUrl, token: svc.tokens.pro, tls: { ca: shortCert } }, checks: ['listFlows'], metrics });
    expect(runner.options.certMinDays).toBe(14);
    const [r] = (await runner.runRound()).records;
    // The answer was good, so uptime says so; the certificate is a finding of its own.
    expect(r).toMatchObject({ success: true, status: 200, error: null, tls: { authorized: true, certMinDays: 14, certOk: false } });
    expect(r?.tls?.certDaysLeft).toBeGreaterThan(1.9);
    expect(r?.tls?.certDaysLeft).toBeLessThanOrEqual(2.01);
    const s = parseExposition(await metrics.registry.metrics());
    expect(valueOf(s, PROBE_METRICS.tlsCertExpiry.name, { check: 'listFlows' })).toBe(Date.parse(r?.tls?.certValidTo as string) / 1000);
    expect(valueOf(s, PROBE_METRICS.success.name, { check: 'listFlows' })).toBe(1);

    // 0 switches the judgement off; the days are still recorded and exported.
    const lenient = createProbeRunner({ target: { baseUrl, token: svc.tokens.pro, tls: { ca: shortCert } }, checks: ['listFlows'], certMinDays: 0 });
    const [l] = (await lenient.runRound()).records;
    expect(l).toMatchObject({ success: true, error: null, tls: { certMinDays: 0, certOk: true } });
    expect(l?.tls?.certDaysLeft).toBeLessThan(2.01);
  });

  it('`probe --once` exits 0 with the expiring certificate said as a finding, not a failure, while the history records the good answer as up', async () => {
    const baseUrl = await tlsProxy('TLSv1.3', { key: shortKey, cert: shortCert });
    const dir = tempDir('flowgauge-probe-cert-');
    writeFileSync(join(dir, 'ca.pem'), shortCert);
    const root = resolve(import.meta.dirname, '../..');
    const args = [CLI_BIN, 'probe', '--once', '--base-url', baseUrl, '--ca', join(dir, 'ca.pem'), '--checks', 'listFlows', '--interval', '1m', '--history', join(dir, 'h'), '--json'];
    const r = await new Promise<{ code: number | null; out: string; err: string }>((done) => {
      const child = execFile(process.execPath, args, { cwd: root, env: { ...process.env, FLOWGAUGE_TOKEN: svc.tokens.pro } }, (e, out, err) => done({ code: child.exitCode, out, err }));
    });
    // Not downtime and not a broken prober: a scheduler must not fail the job for 14 days over it.
    expect(r.err).toMatch(/flowgauge: finding: listFlows: the certificate has 2\.0 days left \(\d{4}-\d\d-\d\dT[\d:.]+Z\), under --cert-min-days 14: renew it/);
    expect(r.err).toContain('flowgauge: all 1 checks succeeded');
    expect(r.code).toBe(0);
    const [rec] = r.out.trim().split('\n').map((l) => JSON.parse(l) as { success: boolean; tls: { certOk: boolean } });
    expect(rec).toMatchObject({ success: true, tls: { certOk: false } });
  });

  it('passes a certificate with 30 days left', async () => {
    const baseUrl = await tlsProxy('TLSv1.3');
    const runner = createProbeRunner({ target: { baseUrl, token: svc.tokens.pro, tls: { ca: cert } }, checks: ['listFlows'], certMinDays: 14 });
    const [r] = (await runner.runRound()).records;
    expect(r).toMatchObject({ success: true, tls: { certMinDays: 14, certOk: true } });
  });
});
