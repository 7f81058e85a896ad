/**
 * The conformance battery against the reference service in each of its switchable variants:
 * what it observes where the interface is silent, and the violations it finds where the
 * service breaks what is stated.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { runConformance, startConformanceReceiver, type ConformanceReport, type ConformanceReceiver } from '../../src/conformance/index.js';
import { startReferenceService, type ReferenceService, type ReferenceServiceOptions } from '../../src/target/index.js';

const TOKEN = 'fg_conformance_test_token_secret';
const OTHER = 'fg_conformance_other_token_secret';
const SECRET = 'whsec_conformance_test';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

async function battery(options: ReferenceServiceOptions = {}, extra: { limitPerMinute?: number; receiver?: boolean } = {}): Promise<{ report: ConformanceReport; service: ReferenceService }> {
  let receiver: ConformanceReceiver | undefined;
  if (extra.receiver === true) {
    receiver = await startConformanceReceiver({ port: 0, secret: SECRET });
    cleanups.push(() => (receiver as ConformanceReceiver).close());
  }
  const service = await startReferenceService({
    latency: 'none',
    tokens: {
      [TOKEN]: { account: 'acct_b', tier: { limitPerMinute: extra.limitPerMinute ?? 1000 } },
      [OTHER]: { account: 'acct_a', tier: 'free' },
    },
    ...(receiver !== undefined ? { notifications: [{ webhook_url: receiver.url, events: ['*'], secret: SECRET }] } : {}),
    ...options,
  });
  cleanups.push(() => service.close());
  const report = await runConformance({
    baseUrl: service.baseUrl,
    webhookHost: service.webhookHost,
    token: TOKEN,
    otherToken: OTHER,
    embedded: true,
    notificationWaitMs: 3000,
    ...(receiver !== undefined ? { notifications: receiver.notifications } : {}),
  });
  return { report, service };
}

const obs = (r: ConformanceReport, id: string) => r.observations.find((o) => o.id === id);

describe('conformance battery', () => {
  it('finds no violation in the default reference service and observes what the interface leaves open', async () => {
    const { report } = await battery();
    expect(report.violations).toEqual([]);
    expect(report.passed).toBe(true);
    expect(report.requests).toBeGreaterThan(20);
    expect(report.requests).toBeLessThan(80);
    expect(obs(report, 'run.streamsByDefault')?.value).toEqual({ streams: false, contentType: expect.stringContaining('application/json') });
    expect(obs(report, 'run.answersRunning')?.value).toBe('completed');
    expect(obs(report, 'rateLimit.resetUnit')?.value).toBe('delta-seconds');
    expect(obs(report, 'rateLimit.retryAfter')?.status).toBe('not-observed');
    expect(obs(report, 'run.errorType')?.status).toBe('unobservable');
    expect(obs(report, 'auth.otherAccount')?.answer).toContain('403');
    expect(obs(report, 'notifications.eventNames')?.status).toBe('not-observed');
    expect(obs(report, 'trigger.ack')?.value).toMatchObject({ runIdHeader: 'x-flowgauge-run-id' });
    expect(obs(report, 'lists.outOfBounds')?.answer).toMatch(/limit=101: HTTP 400 INVALID_REQUEST/);
    expect(JSON.stringify(report)).not.toContain(TOKEN);
    expect(JSON.stringify(report)).not.toContain(OTHER);
  });

  it('says epoch-seconds when Reset is an epoch', async () => {
    const { report } = await battery({ rateLimit: { reset: 'epoch-seconds' } });
    expect(obs(report, 'rateLimit.resetUnit')?.value).toBe('epoch-seconds');
    expect(report.violations).toEqual([]);
  });

  it('reports the missing rate-limit headers as a violation', async () => {
    const { report } = await battery({ rateLimit: { headers: false } });
    expect(report.passed).toBe(false);
    const rules = report.violations.filter((v) => v.rule === 'rateLimit.headers').map((v) => v.path).sort();
    expect(rules).toEqual(['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']);
    expect(obs(report, 'rateLimit.resetUnit')?.status).toBe('not-observed');
  });

  it('follows a run that answers running and reports the progress range', async () => {
    const { report } = await battery({ runMode: 'async', latency: { ttftMs: 50, itlMs: 10, jitter: 0, tokens: { min: 10, max: 10 } } });
    expect(obs(report, 'run.answersRunning')?.value).toBe('running');
    expect(obs(report, 'run.progressRange')?.value).toEqual({ min: 0, max: 100, monotonic: true });
    expect(report.violations).toEqual([]);
  });

  it('names the flow.completed event set from a receiver', async () => {
    const { report } = await battery({ eventNames: 'flow' }, { receiver: true });
    expect(obs(report, 'notifications.eventNames')?.value).toMatchObject({ set: 'flow' });
    const other = await battery({}, { receiver: true });
    expect(obs(other.report, 'notifications.eventNames')?.value).toMatchObject({ set: 'flow.run' });
  });

  it('provokes a 429 when the limit is within reach and sees Retry-After', async () => {
    const { report } = await battery({}, { limitPerMinute: 60 });
    const ra = obs(report, 'rateLimit.retryAfter');
    expect(ra?.status).toBe('observed');
    expect(ra?.value).toMatchObject({ withRetryAfter: expect.any(Number) });
    expect((ra?.value as { responses429: number }).responses429).toBeGreaterThan(0);
    expect(report.violations).toEqual([]);
  });

  it('observes the error type of failed runs when some fail', async () => {
    const { report } = await battery({ failureRate: 1 });
    expect(obs(report, 'run.errorType')?.status).toBe('observed');
    expect(obs(report, 'run.errorType')?.answer).toMatch(/^object/);
  });

  it('reports an unreachable target', async () => {
    const report = await runConformance({ baseUrl: 'http://127.0.0.1:9/v1', token: TOKEN, timeoutMs: 2000 });
    expect(report.reachable).toBe(false);
    expect(report.passed).toBe(false);
    expect(report.requests).toBe(1);
  });
});
