/**
 * `flowgauge/client`: the typed client of the Workflow Execution Service. Every operation
 * resolves to a result (`ApiResult`, `StreamResult`) and never rejects; `ApiError` and
 * `TransportError` are what a failed result carries.
 */
export { ApiError, createClient, TransportError } from './api/index.js';
export type {
  ApiResult,
  CallOptions,
  Client,
  ClientOptions,
  ResponseMeta,
  StreamCallOptions,
  StreamEventType,
  StreamResult,
  StreamSummary,
  TimedStreamEvent,
} from './api/index.js';
export type { ErrorCode } from './core/codes.js';
