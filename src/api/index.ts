/** The typed client of the Workflow Execution Service interface. */
export { clientSpecOf, createClient, createClientFromSpec, type ClientSpec } from './client.js';
export { httpTarget, type HttpRequest, type HttpResult } from './http-request.js';
export type { CallOptions, Client, StreamCallOptions } from './client-types.js';
export { ApiError, TransportError, createTransportError } from './errors.js';
export { DEFAULT_REQUEST_MS, resolveClientOptions, type ClientOptions, type TransportChoice } from './options.js';
export { parseRateLimitHeaders, retryWaitSeconds, type ResponseHeaders } from './rate-limit-headers.js';
export { urlWithoutSecrets } from './redact.js';
export { VALIDATE_SAMPLE_EVERY, type ValidateMode } from './validate.js';
export {
  errorCodeOf,
  type ApiResult,
  type ResponseMeta,
  type StreamEventType,
  type StreamResult,
  type StreamSummary,
  type TimedStreamEvent,
} from './result.js';
export * from './schemas.js';
export { serviceErrorOf } from './response.js';
export { createSseDecoder, toTimedEvent } from './sse-decoder.js';
export { StreamState } from './stream-state.js';
export type * from './types.js';
