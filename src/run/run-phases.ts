/**
 * The phases a run can have, built from one description in one place: the session in this
 * thread and each worker thread get the same list for the same wishes. Order matters for
 * finishing: following ends runs before notifications are settled, and both before the audit
 * reads the service's account.
 */
import { resolveFollowOptions, type FollowOptions } from './async-follow.js';
import type { NotificationTracking } from './notifications.js';
import type { RunPhase } from './phase.js';
import { createAuditPhase } from './phases/audit-phase.js';
import { createFollowPhase } from './phases/follow-phase.js';
import { createGeneratorPhase } from './phases/generator-phase.js';
import { createNotificationsPhase } from './phases/notifications-phase.js';

/** What a run should do beside and after its schedule. Plain data but for a started receiver, so workers get the same. */
export interface PhaseWishes {
  /** Follow runs that answer `running` to their end with `GET /runs/{id}` (`true`: default options); off by default. */
  readonly follow?: boolean | FollowOptions | undefined;
  /** Match the outbound notifications a started receiver gets (one thread only). */
  readonly notifications?: NotificationTracking | undefined;
  /** After the run, compare `/analytics/usage` and session histories with what the client saw; off by default. */
  readonly audit?: boolean | undefined;
  /** Watch the generator itself (event-loop delay, CPU) and warn when it limited the load; off by default. */
  readonly generator?: boolean | undefined;
}

/** The phase list for `wishes`. */
export function createRunPhases(wishes: PhaseWishes): RunPhase[] {
  const follow = wishes.follow === undefined || wishes.follow === false ? undefined : wishes.follow === true ? {} : wishes.follow;
  const list: (RunPhase | undefined)[] = [
    follow === undefined ? undefined : createFollowPhase(resolveFollowOptions(follow)),
    wishes.notifications === undefined ? undefined : createNotificationsPhase(wishes.notifications),
    wishes.audit === true ? createAuditPhase() : undefined,
    wishes.generator === true ? createGeneratorPhase() : undefined,
  ];
  return list.filter((p): p is RunPhase => p !== undefined);
}
