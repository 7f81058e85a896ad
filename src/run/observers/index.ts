/** The run's observers, each one file; `createRunObservers` builds the list from wishes. */
export { createAuditObserver } from './audit-observer.js';
export { createFollowObserver } from './follow-observer.js';
export { createGeneratorObserver, type GeneratorLimits } from './generator-observer.js';
export { createMetricsObserver } from './metrics-observer.js';
export { createNotificationsObserver } from './notifications-observer.js';
export { createProgressObserver } from './progress-observer.js';
export { createTracingObserver } from './tracing-observer.js';
export { createRunObservers, type RunObserverWishes } from './run-observers.js';
export {
  createDashboardObserver,
  createDashboardRelay,
  createDashboardWindowObserver,
  type DashboardFeedOptions,
  type DashboardMessage,
  type DashboardRelay,
  type DashboardWindow,
} from './dashboard-observer.js';
