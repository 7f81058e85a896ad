/** The run's observers, each one file; `createRunObservers` builds the list from wishes. */
export { createAuditObserver } from './audit-observer.js';
export { createRunObservers, type RunObserverWishes } from './run-observers.js';
export {
  createDashboardObserver,
  createDashboardRelay,
  createDashboardWindowObserver,
  type DashboardMessage,
  type DashboardRelay,
  type DashboardWindow,
} from './dashboard-observer.js';
