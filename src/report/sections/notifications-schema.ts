/**
 * report@1 `notifications`: the zod schema, and the types taken from it (`z.output`, readonly at
 * every depth). How the section is projected and merged is in `notifications.ts`; the whole
 * report's schema is put together in `../report-schema.ts`.
 */
import { z } from 'zod';
import { count, countMap, nonNegative, obj, pct, written, type DeepReadonly } from './schema-kit.js';

/** report@1 `notifications`. */
export const notificationsSchema = obj(
  {
    eventSet: z.enum(['flow.run', 'flow', 'mixed', 'none']),
    /** Accepted deliveries by event name as sent (at most 20 names; the rest under `(other)`). */
    events: countMap,
    /** Accepted deliveries during the run. */
    received: count,
    /** Runs whose completion the client observed: each should be notified. */
    expected: count,
    /** Of those, notified (completed or failed event received). */
    matched: count,
    /** Of those, not notified within `graceMs` of the client seeing the completion. */
    missing: count,
    /** Second and later deliveries of the same event for the same run. */
    duplicate: count,
    /** Runs whose completion was delivered before their start. */
    outOfOrder: count,
    /** Receipt − the client's observation of the completion, for deliveries that came after it. */
    deliveryLatencyMs: pct,
    /** Deliveries the receiver refused, by reason (`bad-signature`, `replay`, `oversize`, …). */
    rejected: countMap,
  },
  {
    /** Requests that reached the receiver, accepted or not. */
    requests: written(count),
    /** Deliveries that arrived before the run started (warm-up traffic), ignored. */
    beforeRun: written(count),
    /** Missing ones whose delivery came after the grace period. */
    late: written(count),
    /** Completions still within their grace period when the snapshot was taken (a run cut short). */
    awaiting: written(count),
    /** Runs whose delivered status contradicted the one the client saw. */
    statusMismatch: written(count),
    /** Run events for runs the client never saw (other traffic, or requests that failed on the way back). */
    unsolicited: written(count),
    sessionEvents: written(count),
    unknownEvents: written(count),
    /** Deliveries that arrived before the client saw the completion, and by how much. */
    beforeClient: written(count),
    leadMs: written(pct),
    graceMs: written(nonNegative),
    triggers: written(
      obj({
        accepted: count,
        matchedByRunId: count,
        matchedByFlowOrder: count,
        /** Accepted triggers with no run found, or no completion delivered. */
        unresolved: count,
      }),
    ),
  },
);

/** `notifications` (added in @1): outbound notifications received during the run. */
export type NotificationsReport = DeepReadonly<z.output<typeof notificationsSchema>>;
