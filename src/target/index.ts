/**
 * The embedded reference implementation of the Workflow Execution Service: the default target
 * of every command and the ground truth of the tests. Imports nothing of the toolkit but `core/`.
 */
export { startReferenceService, type ReferenceService } from './service.js';
export {
  DEFAULT_TOKENS,
  DEFAULT_ACCOUNTS,
  DEFAULT_ENTERPRISE_LIMIT,
  resolveReferenceOptions,
  type ReferenceServiceOptions,
  type ResolvedReferenceOptions,
  type ResolvedLatency,
  type ResolvedToken,
  type TokenSpec,
  type FlowSpec,
  type LatencyOptions,
  type RateLimitOptions,
  type NotificationSpec,
  type DeliveryOptions,
  type QuirkOptions,
  type RequestInfo,
} from './options.js';
export { parseReferenceConfig, NOTIFICATION_EVENT_NAMES } from './config.js';
export {
  SIGNATURE_HEADER,
  DEFAULT_SIGNATURE_TOLERANCE_S,
  computeSignature,
  signPayload,
  parseSignatureHeader,
  verifySignature,
  type ParsedSignature,
  type SignatureCheck,
  type VerifyOptions,
} from '../core/webhook-signature.js';
export {
  FAULT_ENDPOINTS,
  type FaultController,
  type FaultEndpoint,
  type FaultPatch,
  type FaultSettings,
  type ErrorFault,
  type StreamStallFault,
  type Premature429Fault,
} from './faults.js';
export type { ServiceStats } from './stats.js';
export { EVENT_NAMES, type NotificationKind } from './notifier.js';
export { TRIGGER_RUN_HEADER } from './handlers-runs.js';
export type { RunError } from './runs.js';
