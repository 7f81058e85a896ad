/**
 * The observers a run can have, built from one description in one place: run, probe, capacity
 * and the library all get the same list for the same wishes. Order matters for finishing:
 * following ends runs before notifications are settled, and both before the audit reads the
 * service's account.
 */
import type { RequestTracer, RunMetrics } from '../../export/index.js';
import { resolveFollowOptions, type FollowOptions } from '../async-follow.js';
import type { NotificationTracking } from '../notifications.js';
import type { RunObserver } from '../observer.js';
import type { RunProgress } from '../progress.js';
import { createAuditObserver } from './audit-observer.js';
import { createFollowObserver } from './follow-observer.js';
import { createGeneratorObserver } from './generator-observer.js';
import { createMetricsObserver } from './metrics-observer.js';
import { createNotificationsObserver } from './notifications-observer.js';
import { createProgressObserver } from './progress-observer.js';
import { createTracingObserver } from './tracing-observer.js';

/** What a run should do besides measuring. */
export interface RunObserverWishes {
  readonly metrics?: RunMetrics | undefined;
  readonly tracer?: RequestTracer | undefined;
  readonly onProgress?: ((p: RunProgress) => void) | undefined;
  /** A started receiver of outbound notifications. */
  readonly notifications?: NotificationTracking | undefined;
  /** Following of runs that answer `running`: on with defaults, `false` turns it off. */
  readonly follow?: FollowOptions | false | undefined;
  /** After the run, compare `/analytics/usage` and session histories with what the client saw. */
  readonly audit?: boolean | undefined;
  /** Watch the generator itself (event-loop delay, CPU) and warn when it limited the load (default on). */
  readonly generator?: boolean | undefined;
  /** Anything else (the live dashboard, a report writer), after the built-in ones. */
  readonly extra?: readonly RunObserver[] | undefined;
}

/** The observer list for `wishes`. */
export function createRunObservers(wishes: RunObserverWishes): RunObserver[] {
  const list: (RunObserver | undefined)[] = [
    wishes.metrics === undefined ? undefined : createMetricsObserver(wishes.metrics),
    wishes.tracer === undefined ? undefined : createTracingObserver(wishes.tracer),
    wishes.onProgress === undefined ? undefined : createProgressObserver(wishes.onProgress),
    wishes.follow === false ? undefined : createFollowObserver(resolveFollowOptions(wishes.follow)),
    wishes.notifications === undefined ? undefined : createNotificationsObserver(wishes.notifications),
    wishes.audit === true ? createAuditObserver() : undefined,
    wishes.generator === false ? undefined : createGeneratorObserver(),
  ];
  if (wishes.notifications !== undefined && wishes.metrics !== undefined) wishes.notifications.attachMetrics(wishes.metrics);
  return [...list.filter((o): o is RunObserver => o !== undefined), ...(wishes.extra ?? [])];
}
