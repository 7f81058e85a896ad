/**
 * Debian's nginx as a real gateway in front of the reference service, the way deployments put
 * one: TLS 1.2-only and TLS 1.3-only fronts (run and probe handshake through each, and the probe
 * names the version); `limit_req` answering its own 429s below the service's advertised tier
 * (counted as premature, the missing headers found, the gateway named as the limiter); nginx's
 * default response buffering on a paced stream (tokens arrive one by one, as the service sent
 * them); a read timeout shorter than the gap between tokens (streams cut mid-body, counted
 * failed); and a dead upstream (before the run: the gateway named, exit 3; during it: nginx's
 * HTML 502s counted against the objective, every request reported).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import type { Report } from '../../src/report/index.js';
import { createClient } from '../../src/api/index.js';
import { FOREIGN_ANSWER } from '../../src/probe/index.js';
import { executeRun, type RunOutput } from '../../src/run/index.js';
import { resolveScenario } from '../../src/scenario/index.js';
import { startReferenceService, type ReferenceService } from '../../src/target/index.js';
import { freePort } from '../helpers/free-port.js';
import { findNginx, nginxPrefix, removePrefix, startNginx, type TestNginx } from './helpers/nginx.js';

const NGINX = findNginx();
const OPENSSL = ((): boolean => {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();
const READY = NGINX !== undefined && OPENSSL;
if (!READY) {
  const what = NGINX === undefined ? 'nginx' : 'openssl';
  if (process.env.CI === 'true') throw new Error(`${what} is required for the nginx gateway tests under CI (apt-get install nginx openssl)`);
  process.stderr.write(`\n*** SKIPPING the nginx gateway tests: ${what} was not found ***\n\n`);
}

/** The service's pacing of a stream, fixed so what arrives can be held to it. */
const TTFT_MS = 30;
const ITL_MS = 10;
/** nginx's own limit, far below the pro tier's advertised 1,000 a minute. */
const NGINX_RATE_PER_S = 5;

const prefix = nginxPrefix();
let svc: ReferenceService;
let gw: TestNginx | undefined;
const ports = { plain: 0, tls12: 0, tls13: 0, limited: 0, deadFront: 0, deadUpstream: 0 };
let caFile = '';

beforeAll(async () => {
  if (!READY) return;
  const keyFile = join(prefix, 'key.pem');
  caFile = join(prefix, 'cert.pem');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '30', '-subj', '/CN=localhost', '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', keyFile, '-out', caFile], { stdio: 'ignore' });
  svc = await startReferenceService({ latency: { ttftMs: TTFT_MS, itlMs: ITL_MS, jitter: 0, tokens: { min: 6, max: 6 }, runOverheadMs: 1, prefillMsPerWord: 0 } });
  for (const k of Object.keys(ports) as (keyof typeof ports)[]) ports[k] = await freePort();
  // Keep-alive upstream connections, as a production gateway has them; buffering left at nginx's default (on).
  const proxy = `proxy_pass http://svc; proxy_http_version 1.1; proxy_set_header Connection "";`;
  const tls = `ssl_certificate ${caFile}; ssl_certificate_key ${keyFile};`;
  gw = await startNginx(
    NGINX as string,
    prefix,
    `upstream svc { server 127.0.0.1:${svc.port}; keepalive 16; }
upstream gone { server 127.0.0.1:${ports.deadUpstream}; }
limit_req_zone $binary_remote_addr zone=tight:1m rate=${NGINX_RATE_PER_S}r/s;
limit_req_status 429;
server { listen 127.0.0.1:${ports.plain}; location / { ${proxy} } }
server { listen 127.0.0.1:${ports.tls12} ssl; ${tls} ssl_protocols TLSv1.2; location / { ${proxy} } }
server { listen 127.0.0.1:${ports.tls13} ssl; ${tls} ssl_protocols TLSv1.3; location / { ${proxy} } }
server { listen 127.0.0.1:${ports.limited}; location / { limit_req zone=tight; ${proxy} } }
server { listen 127.0.0.1:${ports.deadFront}; location / { proxy_pass http://gone; } }`,
    [ports.plain, ports.tls12, ports.tls13, ports.limited, ports.deadFront],
  );
  writeFileSync(join(prefix, 'list.json'), JSON.stringify({ name: 'via-nginx', tier: 'pro', load: { rate: '20/s', duration: '2s' }, mix: [{ op: 'listFlows' }] }));
  writeFileSync(join(prefix, 'stream.json'), JSON.stringify({ name: 'stream-via-nginx', tier: 'pro', load: { rate: '10/s', duration: '1s' }, mix: [{ op: 'stream' }] }));
}, 30_000);

afterAll(async () => {
  await gw?.stop();
  await svc?.close();
  removePrefix(prefix);
});

let outs = 0;
async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const io = memoryIo({ cwd: prefix });
  const code = await main(args, io);
  return { code, out: io.out(), err: io.err() };
}
async function run(scenario: string, baseUrl: string, extra: string[] = []): Promise<{ code: number; out: string; err: string; report: Report }> {
  const out = join(prefix, `out-${outs++}`);
  const r = await cli(['run', join(prefix, scenario), '--base-url', baseUrl, '--token', svc.tokens.pro, '--out', out, ...extra]);
  const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as Report;
  return { ...r, report };
}

describe.skipIf(!READY)('flowgauge behind nginx', () => {
  it.each([
    ['tls12', 'TLSv1.2'],
    ['tls13', 'TLSv1.3'],
  ] as const)('handshakes with a %s-only front: the run passes and the probe names %s', async (front, version) => {
    const baseUrl = `https://127.0.0.1:${ports[front]}/v1`;
    const r = await run('list.json', baseUrl, ['--ca', caFile, '--quiet']);
    expect(r.err, gw?.errorLog()).toBe('');
    expect(r.code).toBe(0);
    expect(r.report.ops.listFlows?.count).toBe(40);
    expect(r.report.slo.bad).toBe(0);
    expect(r.report.ops.listFlows?.phases?.tlsMs.count).toBeGreaterThan(0);
    const p = await cli(['probe', '--once', '--json', '--checks', 'listFlows', '--history', join(prefix, `h-${front}`), '--base-url', baseUrl, '--token', svc.tokens.pro, '--ca', caFile]);
    expect(p.code, p.err).toBe(0);
    const record = JSON.parse(p.out.trim().split('\n')[0] as string) as { success: boolean; tls: { version: string } | null };
    expect(record.success).toBe(true);
    expect(record.tls?.version).toBe(version);
    expect(`${r.out}${r.err}${p.out}${p.err}`).not.toContain(svc.tokens.pro);
  });

  it("counts limit_req's 429s below the advertised tier as premature, and finds their headers missing", async () => {
    const r = await run('list.json', `http://127.0.0.1:${ports.limited}/v1`);
    const rl = r.report.rateLimit;
    const op = r.report.ops.listFlows;
    // Every request is accounted for: nginx's own answers and the service's.
    expect(op?.count).toBe(40);
    expect((op?.statuses['200'] ?? 0) + (op?.statuses['429'] ?? 0)).toBe(40);
    // 20/s against nginx's 5/s (no burst): most are refused, a few pass each second.
    expect(rl.responses429).toBeGreaterThanOrEqual(20);
    expect(rl.responses429).toBeLessThan(40);
    // The service advertised 1,000 a minute; 40 requests never passed it, so every 429 is premature.
    expect(rl.advertisedLimit).toBe(1000);
    expect(rl.premature429).toBe(rl.responses429);
    expect(rl.expected429).toBe(0);
    // nginx's 429 carries neither X-RateLimit headers nor the interface's JSON error body.
    expect(rl.headerViolations['missing-limit']).toBe(rl.responses429);
    expect(r.report.contractViolationTotals.total).toBe(rl.responses429);
    expect(r.report.slo.bad).toBe(rl.responses429);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/✗ ratelimit\.premature429\s+== 0\s+\d+/);
    expect(r.out).toContain('the run measured the limiter, not the service');
    // And the reader is told the service did not send them: they carry none of its headers.
    expect(rl.headerless429).toBe(rl.responses429);
    expect(r.out).toContain(`all ${rl.responses429} 429s carried no X-RateLimit headers where the service's answers carry them: something in front of the service`);
  });

  it("keeps a paced stream's timings through nginx's default buffering: tokens arrive one by one", async () => {
    const r = await run('stream.json', `http://127.0.0.1:${ports.plain}/v1`, ['--quiet']);
    expect(r.code, r.err).toBe(0);
    const s = r.report.stream;
    expect(s.count).toBe(10);
    expect(s.completed).toBe(10);
    expect(s.tokens).toBe(60);
    expect(s.tokenCountMismatches).toBe(0);
    // The service cannot send sooner than its pacing: a buffering gateway would bunch the tokens
    // (gaps near 0, first token at the end); what arrives keeps the service's spacing.
    expect(s.ttftMs.p50).toBeGreaterThanOrEqual(TTFT_MS);
    expect(s.itlMs.p50).toBeGreaterThanOrEqual(ITL_MS / 2);
    expect(s.timeToEndMs.p50).toBeGreaterThanOrEqual(TTFT_MS + 5 * ITL_MS);
    // Not one piece: at most a stream or two that a starved client read late (the verdict's bar is half).
    expect(s.deliveredAtOnce).toBeLessThan(s.count / 2);
  });

  it("names the gateway when it answers for a dead service: nginx's HTML 502 before the run, exit 3", async () => {
    const r = await cli(['run', join(prefix, 'list.json'), '--base-url', `http://127.0.0.1:${ports.deadFront}/v1`, '--token', svc.tokens.pro, '--out', join(prefix, 'out-dead')]);
    expect(r.code).toBe(3);
    expect(r.err).toContain('answered GET /flows with HTTP 502 and a non-JSON body (an HTML page?): a gateway or proxy in front of the service answered');
    // The uptime probe's record says the same of the answer, for whoever reads the incident.
    const p = await cli(['probe', '--once', '--interval', '1m', '--json', '--checks', 'listFlows', '--history', join(prefix, 'h-dead'), '--base-url', `http://127.0.0.1:${ports.deadFront}/v1`, '--token', svc.tokens.pro]);
    expect(p.code).toBe(1);
    const record = JSON.parse(p.out.trim().split('\n')[0] as string) as { success: boolean; status: number; error: string; detail?: string };
    expect(record).toMatchObject({ success: false, status: 502, error: 'UNKNOWN', detail: FOREIGN_ANSWER });
  });

  it("counts streams nginx cuts at its proxy_read_timeout as failed, each after its first token", async () => {
    // Tokens 1.5 s apart behind a gateway that waits at most 1 s between reads: a common LLM
    // deployment mistake. nginx closes each stream mid-body after its first token.
    const slow = await startReferenceService({ latency: { ttftMs: 50, itlMs: 1500, jitter: 0, tokens: { min: 3, max: 3 }, runOverheadMs: 1, prefillMsPerWord: 0 } });
    const front = await freePort();
    const gw3 = await startNginx(
      NGINX as string,
      nginxPrefix(),
      `upstream slow { server 127.0.0.1:${slow.port}; keepalive 4; }
server { listen 127.0.0.1:${front}; location / { proxy_pass http://slow; proxy_http_version 1.1; proxy_set_header Connection ""; proxy_read_timeout 1s; } }`,
      [front],
    );
    try {
      writeFileSync(join(prefix, 'cut.json'), JSON.stringify({ name: 'cut', tier: 'pro', load: { rate: '5/s', duration: '1s' }, mix: [{ op: 'stream' }] }));
      const r = await run('cut.json', `http://127.0.0.1:${front}/v1`, ['--no-audit']);
      const s = r.report.stream;
      expect(s.count).toBe(5);
      expect(s.completed).toBe(0);
      expect(s.tokens).toBe(5);
      // The body ended before its last chunk: a failed stream, said on the errors line.
      expect(r.report.ops.stream?.errors).toEqual({ CONNECTION_RESET: 5 });
      expect(r.report.slo.bad).toBe(5);
      expect(r.code).toBe(1);
      expect(r.out).toContain('stream  0/5 complete');
      expect(r.out).toContain('errors  5 CONNECTION_RESET');
    } finally {
      await gw3.stop();
      removePrefix(gw3.prefix);
      await slow.close();
    }
  });

  it("counts nginx's 502s once the service behind it dies mid-run, and still reports every request", async () => {
    const dying = await startReferenceService({ latency: 'none' });
    const front = await freePort();
    const gw2 = await startNginx(
      NGINX as string,
      nginxPrefix(),
      `upstream dying { server 127.0.0.1:${dying.port}; keepalive 4; }
server { listen 127.0.0.1:${front}; location / { proxy_pass http://dying; proxy_http_version 1.1; proxy_set_header Connection ""; } }`,
      [front],
    );
    try {
      const baseUrl = `http://127.0.0.1:${front}/v1`;
      const client = createClient({ baseUrl, token: dying.tokens.pro });
      let seen = 0;
      // The service goes away after the 10th answer: deterministic, whatever the machine's speed.
      const killer: RunOutput = {
        name: 'killer',
        sample() {
          if (++seen === 10) void dying.close();
        },
      };
      const scenario = resolveScenario({ name: 'dying', tier: 'pro', load: { rate: '40/s', duration: '1s' }, mix: [{ op: 'listFlows' }] });
      const { report } = await executeRun({ scenario, client, target: { baseUrl, embedded: false }, outputs: [killer] });
      await client.close();
      const op = report.ops.listFlows;
      expect(op?.count).toBe(40);
      const ok = op?.statuses['200'] ?? 0;
      const gateway = op?.statuses['502'] ?? 0;
      expect(ok).toBeGreaterThanOrEqual(10);
      expect(gateway).toBeGreaterThan(0);
      // Every request is one of the two, and every 502 counts against the objective.
      expect(ok + gateway).toBe(40);
      expect(report.slo.bad).toBe(gateway);
      expect(report.slo.good).toBe(ok);
      expect(report.passed).toBe(false);
    } finally {
      await gw2.stop();
      removePrefix(gw2.prefix);
      await dying.close();
    }
  });
});
