/**
 * What one `probe --once` round says to a scheduler: all good, the target failed, findings that
 * are not downtime (never a failure), and the prober failing (wrong address, unstored records).
 */
import { describe, expect, it } from 'vitest';
import { FOREIGN_ANSWER, onceVerdict, type ProbeRecord } from '../../src/probe/index.js';
import { record } from './helpers.js';

const T = Date.parse('2026-11-22T12:00:00Z');
const ok = (over: Partial<ProbeRecord> = {}): ProbeRecord => record({ timeMs: T, ...over });
const tls = { version: 'TLSv1.3', versionOk: true, certValidTo: '2026-11-24T12:00:00.000Z', certDaysLeft: 2, authorized: true, certMinDays: 14, certOk: true };

describe('onceVerdict', () => {
  it('all good: ok, no findings', () => {
    expect(onceVerdict([ok(), ok({ check: 'run' })], 0)).toEqual({ outcome: 'ok', failed: [], findings: [] });
  });

  it('a certificate under the minimum and TLS 1.2 are findings, not failures', () => {
    const v = onceVerdict([ok({ tls: { ...tls, certOk: false } }), ok({ check: 'run', tls: { ...tls, version: 'TLSv1.2', versionOk: false } })], 0);
    expect(v.outcome).toBe('ok');
    expect(v.findings).toEqual([
      'listFlows: the certificate has 2.0 days left (2026-11-24T12:00:00.000Z), under --cert-min-days 14: renew it',
      'run: negotiated TLSv1.2, below the TLSv1.3 target',
    ]);
  });

  it('a failed check is the target failing, findings still said', () => {
    const v = onceVerdict([ok({ tls: { ...tls, certOk: false } }), ok({ check: 'run', success: false, status: 503, error: 'SERVICE_UNAVAILABLE' })], 0);
    expect(v).toMatchObject({ outcome: 'failed', failed: ['run'] });
    expect(v.findings).toHaveLength(1);
  });

  it("every check a 404 page that is not the service's: the address is wrong", () => {
    const page = (check: ProbeRecord['check'], detail: string) => ok({ check, success: false, status: 404, error: 'NOT_FOUND', detail });
    expect(onceVerdict([page('listFlows', FOREIGN_ANSWER), page('run', `flow discovery failed: ${FOREIGN_ANSWER}`)], 0).outcome).toBe('not-the-interface');
    // The service's own 404 (a flow gone) is the target failing, and so is a mix with other failures.
    expect(onceVerdict([page('listFlows', FOREIGN_ANSWER), ok({ check: 'run', success: false, status: 404, error: 'NOT_FOUND' })], 0).outcome).toBe('failed');
    expect(onceVerdict([page('listFlows', FOREIGN_ANSWER), ok({ check: 'run' })], 0).outcome).toBe('failed');
  });

  it('records the history could not store outrank everything: the prober failed', () => {
    expect(onceVerdict([ok()], 1).outcome).toBe('unrecorded');
    expect(onceVerdict([ok({ success: false, status: 503, error: 'SERVICE_UNAVAILABLE' })], 1).outcome).toBe('unrecorded');
  });
});
