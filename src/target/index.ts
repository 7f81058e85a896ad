/**
 * The embedded reference implementation of the Workflow Execution Service: the default target
 * of every command and the ground truth of the tests. Imports nothing of the toolkit but `core/`.
 */
export { startReferenceService, type ReferenceService } from './service.js';
export { startReferenceServiceThread, type ReferenceServiceThread } from './service-thread.js';
export { DEFAULT_TOKENS, resolveReferenceOptions, type ReferenceServiceOptions } from './options.js';
export { parseReferenceConfig } from './config.js';
export { verifySignature } from '../core/webhook-signature.js';
export { TRIGGER_RUN_HEADER } from './handlers-runs.js';
