/**
 * The client's public surface: one method per operation of the interface. Every method
 * resolves to a result; none rejects for HTTP or transport failures.
 */
import type { HttpRequest, HttpResult } from './http-request.js';
import type { ApiResult, StreamResult, TimedStreamEvent } from './result.js';
import type { ValidateMode } from './validate.js';
import type {
  CreateSessionBody,
  Flow,
  FlowList,
  History,
  ListAllFlowsQuery,
  ListFlowsQuery,
  Run,
  RunBody,
  RunStatusBody,
  Session,
  StreamBody,
  TriggerAck,
  UsageQuery,
  UsageStats,
} from './types.js';

/** Per-call options. */
export interface CallOptions {
  /** Aborts the call; it then resolves with `ABORTED`. */
  signal?: AbortSignal;
  /**
   * Extra request headers (e.g. W3C `traceparent`). Names are case-insensitive and replace
   * the client's own; an empty value removes a header (e.g. `authorization` for a negative test).
   */
  headers?: Record<string, string>;
  /**
   * Whole-request deadline in ms (queueing, connecting and the whole body, a stream's
   * included); default the client's `timeouts.requestMs`; 0 for none. A request cut by it
   * resolves with `TIMEOUT` (a stream's timing says how far it got).
   */
  deadlineMs?: number;
  /** How much of a 2xx body this call checks (`ValidateMode`; default `full`). A client created with `validate: false` checks none. */
  validate?: ValidateMode;
}

/** Options of `stream`: a callback receives each event as it is decoded. */
export interface StreamCallOptions extends CallOptions {
  onEvent?: (event: TimedStreamEvent) => void;
}

/** A typed client of the Workflow Execution Service interface. */
export interface Client {
  /** The API address, without a trailing slash. */
  readonly baseUrl: string;
  /** The trigger host, without a trailing slash. */
  readonly webhookHost: string;
  /** `POST /flows/{id}/run`. A `running` run is a success (asynchronous runs are legal). */
  run(flowId: string, body: RunBody, opts?: CallOptions): Promise<ApiResult<Run>>;
  /** `POST /flows/{id}/stream`, consumed to the end; `onEvent` sees each event as it arrives. */
  stream(flowId: string, body: StreamBody, opts?: StreamCallOptions): Promise<StreamResult>;
  /** `POST /flows/{id}/stream` as an async generator of events, returning the result. */
  streamEvents(flowId: string, body: StreamBody, opts?: CallOptions): AsyncGenerator<TimedStreamEvent, StreamResult>;
  /** `GET /runs/{id}`. */
  getRun(runId: string, opts?: CallOptions): Promise<ApiResult<RunStatusBody>>;
  /** `GET /flows`. */
  listFlows(query?: ListFlowsQuery, opts?: CallOptions): Promise<ApiResult<FlowList>>;
  /** Every page of `GET /flows`, in order; stops after an error or the last page. */
  listAllFlows(query?: ListAllFlowsQuery, opts?: CallOptions): AsyncIterable<ApiResult<FlowList>>;
  /** `GET /flows/{id}`. */
  getFlow(flowId: string, opts?: CallOptions): Promise<ApiResult<Flow>>;
  /** `POST /sessions`. */
  createSession(body: CreateSessionBody, opts?: CallOptions): Promise<ApiResult<Session>>;
  /** `GET /sessions/{id}/history`. */
  getHistory(sessionId: string, opts?: CallOptions): Promise<ApiResult<History>>;
  /** `GET /analytics/usage`. */
  getUsage(query?: UsageQuery, opts?: CallOptions): Promise<ApiResult<UsageStats>>;
  /** `POST {webhookHost}/api/v1/webhook/{id}`; carries the bearer only with `triggerAuth`. */
  trigger(flowId: string, payload: Record<string, unknown>, opts?: CallOptions): Promise<ApiResult<TriggerAck>>;
  /**
   * A request outside the interface's operations (an auth call, a health page, a webhook of
   * yours) on the same transports and timing: a relative `path`/`url` goes to the base URL; the
   * token goes only to the API's origin unless `auth: true`. Throws `InvalidArgumentError` for a
   * URL or method it will not send; never rejects for what the target does. Optional, so other
   * implementations of `Client` stay valid.
   */
  http?(req: HttpRequest, opts?: CallOptions & { readonly name?: string }): Promise<HttpResult>;
  /** Closes the connection pools after in-flight requests finish; later calls resolve `ABORTED`. */
  close(): Promise<void>;
  /**
   * Scrubs the client's token from `text` (text that came from the server, on its way into a
   * report); optional, so other implementations of `Client` stay valid.
   */
  redact?(text: string): string;
}
