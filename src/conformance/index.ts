/** The conformance battery: what a target does where the interface is silent, and where it breaks what is stated. */
export { DEFAULT_CONFORMANCE_DEADLINE_MS, runConformance, type ConformanceOptions, type ConformanceProgress } from './battery.js';
export { CONFORMANCE_SCHEMA, type ConformanceReport, type Observation, type ObservationStatus, type Violation } from './model.js';
export { renderConformanceMarkdown } from './render.js';
export { startConformanceReceiver, type ConformanceNotifications, type ConformanceReceiver } from './notifications.js';
export { resetUnitOf, PROVOKE_BUDGET, type ResetUnit } from './probes-limits.js';
export { parseSseText, type SseView, type SseViewEvent } from './sse-view.js';
