/**
 * Matching of outbound notifications to the runs the client saw. Pure: the receiver
 * (export/webhook-receiver.ts) hands deliveries in, the run's notifications phase
 * (run/phases/notifications-phase.ts) hands in what the client observed, and the snapshot
 * classifies every delivery: matched (with its latency from the client's view of the
 * completion), missing after a grace period, duplicate, out of order (completed before
 * started), unsolicited. Trigger runs, whose ids a client may never learn, are matched by
 * flow and time order.
 */
import { createLatencyHistogram, recordNs, toPct, type Pct } from './histogram.js';

/** Which event-name set the service used (the interface shows two and says neither is authoritative). */
export type NotificationEventSet = 'flow.run' | 'flow' | 'mixed' | 'none';

/** The matcher's judgement of one delivery, with its latency when it settled a run the client had seen finish. */
export interface DeliveryResult {
  readonly verdict: DeliveryVerdict;
  /** Receipt − the client's observation of the completion (ns, ≥ 0), for `matched`. */
  readonly latencyNs: number | undefined;
}

/** What an event name means to the matcher. */
export type NotificationEventKind = 'started' | 'completed' | 'failed' | 'session' | 'unknown';

/** Event names of both sets, with their meaning and their set. */
export const NOTIFICATION_EVENTS: Readonly<Record<string, { readonly kind: NotificationEventKind; readonly set: 'flow.run' | 'flow' | undefined }>> = {
  'flow.run.started': { kind: 'started', set: 'flow.run' },
  'flow.run.completed': { kind: 'completed', set: 'flow.run' },
  'flow.run.failed': { kind: 'failed', set: 'flow.run' },
  'flow.completed': { kind: 'completed', set: 'flow' },
  'flow.failed': { kind: 'failed', set: 'flow' },
  'session.created': { kind: 'session', set: undefined },
  'session.ended': { kind: 'session', set: undefined },
};

/** The kind of an event name (`unknown` for names neither set has). */
export function notificationEventKind(event: string): NotificationEventKind {
  return Object.hasOwn(NOTIFICATION_EVENTS, event) ? (NOTIFICATION_EVENTS[event]?.kind ?? 'unknown') : 'unknown';
}

/** One accepted delivery, as the matcher needs it (the receiver's `ReceivedDelivery` fits). */
export interface NotificationDeliveryInput {
  /** Monotonic ns of receipt, on the same clock as the client's timings. */
  readonly receivedNs: number;
  readonly event: string;
  readonly runId: string | undefined;
  readonly flowId: string | undefined;
  readonly status: string | undefined;
  readonly totalTokens: number | undefined;
}

/** How the matcher judged one delivery (the `result` label of the notifications metric). */
export type DeliveryVerdict = 'matched' | 'early' | 'pending' | 'duplicate' | 'out-of-order' | 'late' | 'session' | 'unknown-event' | 'before-run';

/** How a trigger's run was found. */
export type TriggerMatch = 'run-id' | 'flow-order';

/** What became of one accepted trigger, as far as notifications tell. */
export interface TriggerOutcome {
  readonly flowId: string;
  readonly intendedNs: number;
  /** The run id, when known (from the acknowledgement, or from matching). */
  readonly runId: string | undefined;
  readonly matchedBy: TriggerMatch | undefined;
  /** Receipt of the run's completed/failed delivery, when one arrived. */
  readonly completedNs: number | undefined;
  readonly status: 'completed' | 'failed' | undefined;
  /** `usage.total_tokens` of that delivery. */
  readonly totalTokens: number | undefined;
}

/** The `notifications` section of report.json, except the receiver's own counters. */
export interface NotificationMatchSnapshot {
  readonly eventSet: NotificationEventSet;
  /** Accepted deliveries by event name as sent (at most 20 names; the rest under `(other)`). */
  readonly events: Readonly<Record<string, number>>;
  /** Accepted deliveries during the run. */
  readonly received: number;
  /** Deliveries that arrived before the run started (warm-up traffic), ignored. */
  readonly beforeRun: number;
  /** Runs whose completion the client observed: each should be notified. */
  readonly expected: number;
  /** Of those, notified (completed or failed event received). */
  readonly matched: number;
  /** Of those, not notified within `graceMs` of the client seeing the completion. */
  readonly missing: number;
  /** Missing ones whose delivery came after the grace period. */
  readonly late: number;
  /** Completions still within their grace period when the snapshot was taken (a run cut short). */
  readonly awaiting: number;
  /** Second and later deliveries of the same event for the same run. */
  readonly duplicate: number;
  /** Runs whose completion was delivered before their start. */
  readonly outOfOrder: number;
  /** Runs whose delivered status contradicted the one the client saw. */
  readonly statusMismatch: number;
  /** Run events for runs the client never saw (other traffic, or requests that failed on the way back). */
  readonly unsolicited: number;
  readonly sessionEvents: number;
  readonly unknownEvents: number;
  /** Receipt − the client's observation of the completion, for deliveries that came after it. */
  readonly deliveryLatencyMs: Pct;
  /** Deliveries that arrived before the client saw the completion, and by how much. */
  readonly beforeClient: number;
  readonly leadMs: Pct;
  readonly graceMs: number;
  readonly triggers: {
    readonly accepted: number;
    readonly matchedByRunId: number;
    readonly matchedByFlowOrder: number;
    /** Accepted triggers with no run found, or no completion delivered. */
    readonly unresolved: number;
  };
}

/** Options of `createNotificationMatcher`. */
export interface NotificationMatcherOptions {
  /** How long after the client saw a completion its delivery may take (default 5000 ms). */
  readonly graceMs?: number;
  /** Runs tracked at once; the oldest are forgotten past it, their counts kept (default 200 000). */
  readonly maxTracked?: number;
}

/** The matcher. */
export interface NotificationMatcher {
  /** Deliveries received before this instant are counted as `beforeRun` and ignored. */
  markStart(nowNs: number): void;
  /** The client saw a run finish (run response, stream `end`, a poll). */
  clientCompleted(runId: string, flowId: string | undefined, status: 'completed' | 'failed', atNs: number): void;
  /** A trigger was accepted; `runId` when the acknowledgement revealed one. */
  triggerAccepted(flowId: string, intendedNs: number, runId?: string): void;
  /** One accepted delivery. */
  delivery(d: NotificationDeliveryInput): DeliveryResult;
  /** Completions still awaiting their delivery (within the grace period), plus triggers not yet seen finishing. */
  awaiting(nowNs: number): number;
  snapshot(nowNs: number): NotificationMatchSnapshot;
  /** Every accepted trigger with what notifications told of it (matching by flow order done here). */
  triggerOutcomes(): TriggerOutcome[];
}

interface RunRec {
  readonly runId: string;
  flowId: string | undefined;
  clientNs: number | undefined;
  clientStatus: 'completed' | 'failed' | undefined;
  started: number;
  terminal: number;
  terminalNs: number | undefined;
  terminalStatus: 'completed' | 'failed' | undefined;
  terminalTokens: number | undefined;
  firstNs: number;
  missing: boolean;
  trigger: TriggerRec | undefined;
}

interface TriggerRec {
  readonly flowId: string;
  readonly intendedNs: number;
  runId: string | undefined;
  matchedBy: TriggerMatch | undefined;
}

const MAX_EVENT_NAMES = 20;

const PLAIN = new Map<DeliveryVerdict, DeliveryResult>();
/** A result without latency; shared frozen objects, since most deliveries need no other. */
function plain(verdict: DeliveryVerdict): DeliveryResult {
  let r = PLAIN.get(verdict);
  if (r === undefined) PLAIN.set(verdict, (r = Object.freeze({ verdict, latencyNs: undefined })));
  return r;
}

/** Creates an empty matcher. */
export function createNotificationMatcher(options: NotificationMatcherOptions = {}): NotificationMatcher {
  const graceMs = options.graceMs ?? 5000;
  const graceNs = graceMs * 1e6;
  const maxTracked = options.maxTracked ?? 200_000;
  const runs = new Map<string, RunRec>();
  /** Client-completed runs without a terminal delivery yet, in completion order. */
  const waiting = new Map<string, RunRec>();
  const triggers: TriggerRec[] = [];
  const events: Record<string, number> = {};
  let eventNames = 0;
  const sets = { 'flow.run': 0, flow: 0 };
  let startNs = -Infinity;
  // Named as in the snapshot, which spreads them.
  const c = { received: 0, beforeRun: 0, expected: 0, matched: 0, missing: 0, late: 0, duplicate: 0, outOfOrder: 0, statusMismatch: 0, sessionEvents: 0, unknownEvents: 0, beforeClient: 0 };
  let evicted = 0;
  const latency = createLatencyHistogram();
  const lead = createLatencyHistogram();

  const rec = (runId: string, flowId: string | undefined, atNs: number): RunRec => {
    let r = runs.get(runId);
    if (r === undefined) {
      if (runs.size >= maxTracked) evict();
      r = { runId, flowId, clientNs: undefined, clientStatus: undefined, started: 0, terminal: 0, terminalNs: undefined, terminalStatus: undefined, terminalTokens: undefined, firstNs: atNs, missing: false, trigger: undefined };
      runs.set(runId, r);
    } else if (r.flowId === undefined) r.flowId = flowId;
    return r;
  };

  // Forgets the oldest tenth, settling what they still owe: a completion still waiting is missing
  // (it is the oldest by far), a run nobody claimed stays unsolicited. Later deliveries for them look unsolicited.
  const evict = (): void => {
    let n = Math.ceil(maxTracked / 10);
    for (const [id, r] of runs) {
      if (n-- <= 0) break;
      runs.delete(id);
      if (waiting.delete(id)) c.missing++;
      if (r.clientNs === undefined && r.trigger === undefined) evicted++;
    }
  };

  const sweep = (nowNs: number): void => {
    for (const [id, r] of waiting) {
      if (nowNs - (r.clientNs as number) <= graceNs) break; // completion order: the rest are younger
      waiting.delete(id);
      r.missing = true;
      c.missing++;
    }
  };

  // Both a delivery and the client's observation are in: record how far apart they were.
  const settle = (r: RunRec): void => {
    const d = (r.terminalNs as number) - (r.clientNs as number);
    if (d >= 0) recordNs(latency, d);
    else {
      c.beforeClient++;
      recordNs(lead, -d);
    }
    c.matched++;
    if (r.terminalStatus !== r.clientStatus) c.statusMismatch++;
  };

  const countEvent = (name: string): void => {
    const key = Object.hasOwn(events, name) || eventNames < MAX_EVENT_NAMES ? name : '(other)';
    if (!Object.hasOwn(events, key)) eventNames++;
    events[key] = (events[key] ?? 0) + 1;
  };

  const matchTriggers = (): void => {
    // Runs nobody claimed, per flow, in order of their first delivery; triggers without a run, in order.
    const orphans = new Map<string, RunRec[]>();
    for (const r of runs.values()) {
      if (r.clientNs !== undefined || r.trigger !== undefined || r.flowId === undefined) continue;
      let list = orphans.get(r.flowId);
      if (list === undefined) orphans.set(r.flowId, (list = []));
      list.push(r);
    }
    for (const list of orphans.values()) list.sort((a, b) => a.firstNs - b.firstNs);
    const next = new Map<string, number>();
    for (const t of triggers) {
      if (t.runId !== undefined) continue;
      const list = orphans.get(t.flowId);
      if (list === undefined) continue;
      let i = next.get(t.flowId) ?? 0;
      // A run cannot be notified before its trigger was sent.
      while (i < list.length && (list[i] as RunRec).firstNs < t.intendedNs) i++;
      const r = list[i];
      next.set(t.flowId, i + 1);
      if (r === undefined) continue;
      r.trigger = t;
      t.runId = r.runId;
      t.matchedBy = 'flow-order';
    }
  };

  const judge = (d: NotificationDeliveryInput): DeliveryResult => {
    if (d.receivedNs < startNs) {
      c.beforeRun++;
      return plain('before-run');
    }
    c.received++;
    countEvent(d.event);
    const meta = Object.hasOwn(NOTIFICATION_EVENTS, d.event) ? NOTIFICATION_EVENTS[d.event] : undefined;
    if (meta?.set !== undefined) sets[meta.set]++;
    const kind = meta?.kind ?? 'unknown';
    if (kind === 'session') {
      c.sessionEvents++;
      return plain('session');
    }
    if (kind === 'unknown' || d.runId === undefined) {
      c.unknownEvents++;
      return plain('unknown-event');
    }
    const r = rec(d.runId, d.flowId, d.receivedNs);
    if (kind === 'started') {
      r.started++;
      if (r.started > 1) {
        c.duplicate++;
        return plain('duplicate');
      }
      if (r.terminal > 0) {
        c.outOfOrder++;
        return plain('out-of-order');
      }
      return plain('pending');
    }
    r.terminal++;
    if (r.terminal > 1) {
      c.duplicate++;
      return plain('duplicate');
    }
    r.terminalNs = d.receivedNs;
    r.terminalStatus = kind;
    r.terminalTokens = d.totalTokens;
    if (r.clientNs === undefined) return plain('pending');
    if (r.missing) {
      c.late++;
      return plain('late');
    }
    waiting.delete(r.runId);
    settle(r);
    const gap = r.terminalNs - r.clientNs;
    return gap < 0 ? plain('early') : { verdict: 'matched', latencyNs: gap };
  };

  return {
    markStart(nowNs) {
      startNs = nowNs;
    },

    clientCompleted(runId, flowId, status, atNs) {
      const r = rec(runId, flowId, atNs);
      if (r.clientNs !== undefined) return;
      r.clientNs = atNs;
      r.clientStatus = status;
      c.expected++;
      if (r.terminalNs !== undefined) settle(r);
      else waiting.set(runId, r);
    },

    triggerAccepted(flowId, intendedNs, runId) {
      const t: TriggerRec = { flowId, intendedNs, runId, matchedBy: runId === undefined ? undefined : 'run-id' };
      triggers.push(t);
      if (runId !== undefined) rec(runId, flowId, intendedNs).trigger = t;
    },

    delivery: judge,

    awaiting(nowNs) {
      sweep(nowNs);
      let unmatched = 0;
      let knownOpen = 0;
      for (const t of triggers) {
        if (t.runId === undefined) unmatched++;
        else if (runs.get(t.runId)?.terminal === 0) knownOpen++;
      }
      // Each finished run nobody claimed may be an unmatched trigger's.
      let orphans = 0;
      if (unmatched > 0) for (const r of runs.values()) if (r.clientNs === undefined && r.trigger === undefined && r.terminal > 0) orphans++;
      return waiting.size + knownOpen + Math.max(0, unmatched - orphans);
    },

    snapshot(nowNs) {
      sweep(nowNs);
      matchTriggers();
      let unsolicited = 0;
      for (const r of runs.values()) if (r.clientNs === undefined && r.trigger === undefined) unsolicited++;
      let byId = 0;
      let byOrder = 0;
      let unresolved = 0;
      for (const t of triggers) {
        if (t.matchedBy === 'run-id') byId++;
        else if (t.matchedBy === 'flow-order') byOrder++;
        if (t.runId === undefined || runs.get(t.runId)?.terminalNs === undefined) unresolved++;
      }
      const set: NotificationEventSet =
        sets['flow.run'] > 0 && sets.flow > 0 ? 'mixed' : sets['flow.run'] > 0 ? 'flow.run' : sets.flow > 0 ? 'flow' : 'none';
      return {
        ...c,
        eventSet: set,
        events: { ...events },
        awaiting: waiting.size,
        unsolicited: unsolicited + evicted,
        deliveryLatencyMs: toPct(latency),
        leadMs: toPct(lead),
        graceMs,
        triggers: { accepted: triggers.length, matchedByRunId: byId, matchedByFlowOrder: byOrder, unresolved },
      };
    },

    triggerOutcomes() {
      matchTriggers();
      return triggers.map((t) => {
        const r = t.runId === undefined ? undefined : runs.get(t.runId);
        const { flowId, intendedNs, runId, matchedBy } = t;
        return { flowId, intendedNs, runId, matchedBy, completedNs: r?.terminalNs, status: r?.terminalStatus, totalTokens: r?.terminalTokens };
      });
    },
  };
}
