/** The conformance battery: what a target does where the interface is silent, and where it breaks what is stated. */
export { DEFAULT_CONFORMANCE_DEADLINE_MS, runConformance, type ConformanceProgress } from './battery.js';
export { type ConformanceReport } from './model.js';
export { renderConformanceMarkdown } from './render.js';
export { startConformanceReceiver, type ConformanceReceiver } from './notifications.js';
export { parseSseText } from './sse-view.js';
