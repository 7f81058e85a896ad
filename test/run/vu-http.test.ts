/**
 * `vu.http`: a journey's own requests beside the interface's operations, against the embedded
 * service and a second local server. Each is counted under `http:<name>` with its latency,
 * statuses and errors; the token goes only to the API's origin unless asked; requests to another
 * origin are left out of availability and of the rate-limit analysis; the report reads back,
 * merges and renders with them.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createClient } from '../../src/api/index.js';
import { mergeReports, readReport, renderMarkdown, renderSummary } from '../../src/report/index.js';
import { executeRun } from '../../src/run/index.js';
import { resolveScenario, type Journey } from '../../src/scenario/index.js';
import { startReferenceService } from '../../src/target/index.js';

const TOKEN = 'fg_vu_http_secret_token_0123';
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

/** The second server: answers 200, or 503 for every third request, and keeps what it was sent. */
async function otherServer(): Promise<{ url: string; seen: { path: string; auth: string | undefined; body: string; method: string }[] }> {
  const seen: { path: string; auth: string | undefined; body: string; method: string }[] = [];
  const server: Server = createServer((req: IncomingMessage, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      seen.push({ path: req.url ?? '', auth: req.headers.authorization, body, method: req.method ?? '' });
      res.writeHead(seen.length % 3 === 0 ? 503 : 200, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  cleanups.push(() => new Promise<void>((r) => server.close(() => r())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

describe('vu.http', () => {
  it('counts each request under http:<name>, sends the token only where it belongs, and judges only the API origin', async () => {
    const service = await startReferenceService({ latency: 'none', tokens: { [TOKEN]: { account: 'acct_h', tier: { limitPerMinute: 1_000_000 } } } });
    cleanups.push(() => service.close());
    const other = await otherServer();
    const client = createClient({ baseUrl: service.baseUrl, token: TOKEN });
    cleanups.push(() => client.close());
    const bodies: string[] = [];
    const journey: Journey = async (vu) => {
      const page = await vu.http({ name: 'flows-page', path: '/flows?limit=1' });
      vu.check('flows page answered', page.ok && page.response?.status === 200);
      if (page.ok) bodies.push(page.value.body);
      await vu.http({ name: 'missing', path: 'no-such-route' });
      await vu.http({ name: 'hook', method: 'POST', url: `${other.url}/hook/${vu.iteration}`, body: { iteration: vu.iteration } });
      await vu.http({ name: 'hook-auth', url: `${other.url}/with-token`, auth: true, slo: true });
      await vu.listFlows({ limit: 1 });
    };
    const { report } = await executeRun({
      scenario: resolveScenario({ name: 'http-journey', tier: { limitPerMinute: 1_000_000 }, thresholds: {}, load: { rate: '20/s', duration: '500ms' }, journey }),
      client,
      target: { baseUrl: service.baseUrl, embedded: true },
    });
    const n = report.iterations?.completed ?? 0;
    expect(n).toBe(10);

    // Same origin, relative path: the API answered with the token it was sent.
    expect(report.ops['http:flows-page']).toMatchObject({ count: n, good: n, bad: 0, excluded: 0, statuses: { '200': n } });
    expect(report.ops['http:flows-page']?.latencyMs.count).toBe(n);
    expect(JSON.parse(bodies[0] ?? '{}')).toHaveProperty('flows');
    expect(report.checks?.['flows page answered']).toEqual({ passes: n, fails: 0 });
    // A 404 of the API's origin is bad, classified as the interface's own 404s are.
    expect(report.ops['http:missing']).toMatchObject({ count: n, good: 0, bad: n, statuses: { '404': n }, errors: { NOT_FOUND: n } });

    // Another origin: no token unless asked; counted and timed, outside availability unless asked.
    const hooks = other.seen.filter((s) => s.path.startsWith('/hook/'));
    expect(hooks).toHaveLength(n);
    expect(hooks.every((s) => s.auth === undefined && s.method === 'POST')).toBe(true);
    expect(hooks.map((s) => JSON.parse(s.body) as { iteration: number }).map((b) => b.iteration).sort((a, b) => a - b)).toEqual([...Array(n).keys()]);
    const hook = report.ops['http:hook'];
    const hook503 = hooks.length - (hook?.statuses['200'] ?? 0);
    expect(hook).toMatchObject({ count: n, good: 0, bad: 0, excluded: n });
    expect(hook?.errors).toEqual(hook503 > 0 ? { SERVICE_UNAVAILABLE: hook503 } : {});
    const withToken = other.seen.filter((s) => s.path === '/with-token');
    expect(withToken.map((s) => s.auth)).toEqual(Array(n).fill(`Bearer ${TOKEN}`));
    const authed = report.ops['http:hook-auth'];
    expect((authed?.good ?? 0) + (authed?.bad ?? 0)).toBe(n);

    // Availability: the API's origin and what was asked in; the other origin's answers left out.
    const judged = (k: string): number => (report.ops[k as 'run']?.good ?? 0) + (report.ops[k as 'run']?.bad ?? 0);
    expect(report.slo.good + report.slo.bad).toBe(judged('http:flows-page') + judged('http:missing') + judged('http:hook-auth') + judged('listFlows'));
    expect(report.slo.excluded).toBe(n);
    // The rate-limit analysis reads the service's answers only (with slo: true too).
    expect(report.rateLimit.responses).toBe(3 * n);

    // The report reads back, merges and renders with its own requests; the token is nowhere in it.
    const json = JSON.stringify(report);
    expect(json).not.toContain(TOKEN);
    expect(readReport(JSON.parse(json))).toEqual(report);
    expect(mergeReports([report, report]).ops['http:hook']?.count).toBe(2 * n);
    expect(renderMarkdown(report)).toContain('`http:flows-page`');
    expect(renderSummary(report)).toContain('http:missing');
  });

  it('a bad name, URL or method fails the iteration with the reason', async () => {
    const service = await startReferenceService({ latency: 'none', tokens: { [TOKEN]: { account: 'acct_h', tier: { limitPerMinute: 1_000_000 } } } });
    cleanups.push(() => service.close());
    const client = createClient({ baseUrl: service.baseUrl, token: TOKEN });
    cleanups.push(() => client.close());
    const journey: Journey = async (vu) => {
      const i = vu.iteration % 3;
      if (i === 0) await vu.http({ name: 'has space', path: '/flows' });
      else if (i === 1) await vu.http({ name: 'ftp', url: 'ftp://127.0.0.1/x' });
      else await vu.http({ name: 'head', path: '/flows', method: 'HEAD' as 'GET' });
    };
    const { report } = await executeRun({
      scenario: resolveScenario({ name: 'http-bad', tier: { limitPerMinute: 1_000_000 }, thresholds: {}, load: { rate: '12/s', duration: '500ms' }, journey }),
      client,
      target: { baseUrl: service.baseUrl, embedded: true },
    });
    const messages = (report.iterations?.errors ?? []).map((e) => e.message).join('\n');
    expect(messages).toContain('vu.http: name "has space" must be letters, digits');
    expect(messages).toContain('http: ftp: URLs are not sent; use http: or https:');
    expect(messages).toContain('http: method "HEAD" is not one of GET, POST, PUT, PATCH, DELETE');
    expect(Object.keys(report.ops)).toEqual([]);
  });
});
