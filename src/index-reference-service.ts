/**
 * `flowgauge/reference-service`: the embedded Workflow Execution Service on 127.0.0.1, the
 * default target of every command and a fixture for a user's own tests.
 */
export { startReferenceService } from './target/index.js';
export type { ReferenceService, ReferenceServiceOptions } from './target/index.js';
