/** The notification matcher on synthetic deliveries: each classification counted exactly. */
import { describe, expect, it } from 'vitest';
import { createNotificationMatcher, type NotificationDeliveryInput } from '../../src/collect/index.js';

const MS = 1e6;

function d(receivedMs: number, event: string, runId: string | undefined, extra: Partial<NotificationDeliveryInput> = {}): NotificationDeliveryInput {
  return { receivedNs: receivedMs * MS, event, runId, flowId: 'flow_a', status: undefined, totalTokens: undefined, ...extra };
}

describe('notification matcher', () => {
  it('matches completions to deliveries and measures latency from the client view', () => {
    const m = createNotificationMatcher({ graceMs: 1000 });
    m.markStart(0);
    m.clientCompleted('r1', 'flow_a', 'completed', 100 * MS);
    expect(m.delivery(d(90, 'flow.run.started', 'r1')).verdict).toBe('pending');
    const res = m.delivery(d(130, 'flow.run.completed', 'r1'));
    expect(res.verdict).toBe('matched');
    expect(res.latencyNs).toBe(30 * MS);
    // The delivery came before the client saw the completion: a lead, not a latency.
    expect(m.delivery(d(200, 'flow.run.completed', 'r2')).verdict).toBe('pending');
    m.clientCompleted('r2', 'flow_a', 'completed', 210 * MS);
    const s = m.snapshot(300 * MS);
    expect(s).toMatchObject({ eventSet: 'flow.run', expected: 2, matched: 2, missing: 0, beforeClient: 1, duplicate: 0, outOfOrder: 0, unsolicited: 0 });
    expect(s.deliveryLatencyMs.count).toBe(1);
    expect(s.deliveryLatencyMs.max).toBeCloseTo(30, 0);
    expect(s.leadMs.count).toBe(1);
    expect(s.events).toEqual({ 'flow.run.started': 1, 'flow.run.completed': 2 });
  });

  it('counts missing after the grace period, late ones, duplicates and out-of-order deliveries', () => {
    const m = createNotificationMatcher({ graceMs: 1000 });
    m.markStart(0);
    m.clientCompleted('miss', 'flow_a', 'completed', 0);
    m.clientCompleted('late', 'flow_a', 'completed', 0);
    m.clientCompleted('dup', 'flow_a', 'completed', 0);
    m.clientCompleted('ooo', 'flow_a', 'failed', 0);
    expect(m.delivery(d(10, 'flow.run.completed', 'dup')).verdict).toBe('matched');
    expect(m.delivery(d(20, 'flow.run.completed', 'dup')).verdict).toBe('duplicate');
    expect(m.delivery(d(10, 'flow.run.failed', 'ooo')).verdict).toBe('matched');
    expect(m.delivery(d(11, 'flow.run.started', 'ooo')).verdict).toBe('out-of-order');
    expect(m.awaiting(500 * MS)).toBe(2);
    expect(m.awaiting(1500 * MS)).toBe(0);
    expect(m.delivery(d(1600, 'flow.run.completed', 'late')).verdict).toBe('late');
    const s = m.snapshot(2000 * MS);
    expect(s).toMatchObject({ expected: 4, matched: 2, missing: 2, late: 1, duplicate: 1, outOfOrder: 1, statusMismatch: 0, awaiting: 0 });
  });

  it('reports a status the client did not see, unsolicited runs, session and unknown events, and early deliveries', () => {
    const m = createNotificationMatcher();
    m.markStart(100 * MS);
    expect(m.delivery(d(50, 'flow.run.completed', 'warmup')).verdict).toBe('before-run');
    m.clientCompleted('r1', 'flow_a', 'completed', 200 * MS);
    m.delivery(d(210, 'flow.run.failed', 'r1'));
    expect(m.delivery(d(220, 'flow.run.completed', 'stranger')).verdict).toBe('pending');
    expect(m.delivery(d(230, 'session.created', undefined)).verdict).toBe('session');
    expect(m.delivery(d(240, 'flow.exploded', 'r9')).verdict).toBe('unknown-event');
    const s = m.snapshot(300 * MS);
    expect(s).toMatchObject({ beforeRun: 1, received: 4, statusMismatch: 1, unsolicited: 1, sessionEvents: 1, unknownEvents: 1 });
  });

  it('names the event-name set the service used', () => {
    const a = createNotificationMatcher();
    a.delivery(d(1, 'flow.completed', 'r1'));
    a.delivery(d(2, 'flow.failed', 'r2'));
    expect(a.snapshot(10).eventSet).toBe('flow');
    const b = createNotificationMatcher();
    b.delivery(d(1, 'flow.completed', 'r1'));
    b.delivery(d(2, 'flow.run.completed', 'r2'));
    expect(b.snapshot(10).eventSet).toBe('mixed');
    expect(createNotificationMatcher().snapshot(10).eventSet).toBe('none');
  });

  it('matches triggers to unclaimed runs by flow and time order, or by a known run id', () => {
    const m = createNotificationMatcher();
    m.markStart(0);
    m.triggerAccepted('flow_a', 100 * MS);
    m.triggerAccepted('flow_b', 110 * MS);
    m.triggerAccepted('flow_a', 120 * MS);
    m.triggerAccepted('flow_a', 130 * MS, 'known');
    // A run of flow_a notified before the first trigger was sent cannot be its run.
    m.delivery(d(90, 'flow.run.completed', 'too-early'));
    m.delivery(d(140, 'flow.run.completed', 'a1', { totalTokens: 7 }));
    m.delivery(d(150, 'flow.run.failed', 'b1', { flowId: 'flow_b' }));
    m.delivery(d(160, 'flow.run.completed', 'a2'));
    m.delivery(d(170, 'flow.run.completed', 'known'));
    // A run the client itself saw is never taken for a trigger's.
    m.clientCompleted('mine', 'flow_a', 'completed', 135 * MS);
    m.delivery(d(136, 'flow.run.completed', 'mine'));
    const outcomes = m.triggerOutcomes();
    expect(outcomes.map((t) => [t.flowId, t.runId, t.matchedBy, t.status])).toEqual([
      ['flow_a', 'a1', 'flow-order', 'completed'],
      ['flow_b', 'b1', 'flow-order', 'failed'],
      ['flow_a', 'a2', 'flow-order', 'completed'],
      ['flow_a', 'known', 'run-id', 'completed'],
    ]);
    expect(outcomes[0]?.totalTokens).toBe(7);
    expect(outcomes[0]?.completedNs).toBe(140 * MS);
    const s = m.snapshot(200 * MS);
    expect(s.triggers).toEqual({ accepted: 4, matchedByRunId: 1, matchedByFlowOrder: 3, unresolved: 0 });
    expect(s.unsolicited).toBe(1);
  });

  it('waits for triggers until enough unclaimed completions arrived', () => {
    const m = createNotificationMatcher();
    m.triggerAccepted('flow_a', 0);
    m.triggerAccepted('flow_a', 0);
    expect(m.awaiting(0)).toBe(2);
    m.delivery(d(5, 'flow.run.completed', 't1'));
    expect(m.awaiting(0)).toBe(1);
    m.delivery(d(6, 'flow.run.completed', 't2'));
    expect(m.awaiting(0)).toBe(0);
    expect(m.snapshot(10).triggers.unresolved).toBe(0);
  });
});

describe('notification matcher memory', () => {
  it('forgets the oldest runs past its bound, counting what they still owed', () => {
    const m = createNotificationMatcher({ maxTracked: 10, graceMs: 1e9 });
    // Ten completions the client saw, none notified yet; then ten runs nobody claimed.
    for (let i = 0; i < 10; i++) m.clientCompleted(`seen${i}`, 'flow_a', 'completed', i * MS);
    for (let i = 0; i < 10; i++) m.delivery(d(100 + i, 'flow.run.completed', `stranger${i}`));
    const s = m.snapshot(200 * MS);
    expect(s.expected).toBe(10);
    // Each eviction pass forgets one run: ten passes settled the ten waiting completions as missing.
    expect(s.missing).toBe(10);
    expect(s.awaiting).toBe(0);
    expect(s.unsolicited).toBe(10);
  });
});
