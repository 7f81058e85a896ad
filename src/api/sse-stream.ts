/**
 * The stream operation over HTTP: sends the request, stamps each body chunk with the clock
 * the moment it arrives (before decoding), decodes events, and settles into a `StreamResult`
 * that always carries the timing seen, complete or not.
 */
import type { TransportErrorCode } from '../core/codes.js';
import { ByteBudget, MAX_STREAM_BYTES } from '../transport/bounded-body.js';
import { createTransportError } from './errors.js';
import { classifyTransportError } from '../transport/wire-errors.js';
import type { BodyStream, ExchangeHandle, ExchangeTimes, Transport } from '../transport/transport.js';
import type { ResponseHeaders } from './rate-limit-headers.js';
import type { RequestHeaders } from './request.js';
import { errorResult, headerRequestId, isSuccessStatus, responseMeta, transportResult, type ResponseContext, type WholeAnswer } from './response.js';
import { EMPTY_STREAM_TIMING, type StreamResult, type TimedStreamEvent } from './result.js';
import { createSseDecoder, type SseDecoder } from './sse-decoder.js';
import { StreamState } from './stream-state.js';
import { isJsonObject } from './validate.js';

/** Receives each event as it is decoded. */
export type StreamEventSink = (event: TimedStreamEvent) => void;

/** The reason a stream is cancelled with when its event sink threw; classified as ABORTED. */
const CLOSED_WITHOUT_END = { code: 'UND_ERR_ABORTED' };

const EVENT_STREAM_RE = /^text\/event-stream\b/i;

/** Most bytes one stream body may carry (`bounded-body.ts`); past it a stream fails as MALFORMED_BODY. */
export { MAX_STREAM_BYTES };

/** Names the error event's code (`code` or `error.code`) when it gives one. */
function errorEventMessage(data: Record<string, unknown>): string {
  const inner = isJsonObject(data.error) ? data.error.code : undefined;
  const code = typeof data.code === 'string' ? data.code : typeof inner === 'string' ? inner : undefined;
  return code === undefined ? 'stream sent an error event' : `stream sent an error event (${code})`;
}

/**
 * Runs one stream. Resolves for every HTTP and transport outcome; rejects only when `sink`
 * throws (a programmer error), after cancelling the request.
 *
 * The body is taken from the transport chunk by chunk (`BodyStream`): each chunk is stamped
 * the moment it is read, with no body stream in between and no listener added to a signal
 * that hundreds of concurrent streams share.
 */
export function runStream(
  ctx: ResponseContext,
  transport: Transport,
  path: string,
  body: string,
  headers: RequestHeaders,
  signal: AbortSignal | undefined,
  sink: StreamEventSink | undefined,
  deadlineMs?: number,
): Promise<StreamResult> {
  const clock = ctx.clock;
  const startNs = clock.nowNs();
  let state: StreamState | undefined;
  let decoder: SseDecoder | undefined;
  let sinkError: unknown;
  let sinkFailed = false;
  let handle: ExchangeHandle | undefined;
  const budget = new ByteBudget(MAX_STREAM_BYTES);
  let tooLarge = false;

  const bodyStream: BodyStream = {
    head(status, resHeaders) {
      if (!isSuccessStatus(status)) return false;
      const st = new StreamState(ctx.validate, ctx.redact);
      state = st;
      const contentType = resHeaders['content-type'];
      if (ctx.validate && (typeof contentType !== 'string' || !EVENT_STREAM_RE.test(contentType))) {
        st.violate('headers.content-type', 'text/event-stream', contentType === undefined ? 'missing' : ctx.redact(String(contentType)));
      }
      decoder = createSseDecoder((e) => {
        st.add(e);
        if (sink === undefined || sinkFailed) return;
        try {
          sink(e);
        } catch (err) {
          sinkFailed = true;
          sinkError = err;
        }
      });
      return true;
    },
    chunk(chunk, atNs) {
      if (tooLarge) return;
      const over = budget.take(chunk.length);
      if (over !== undefined) {
        tooLarge = true;
        handle?.cancel(over);
        return;
      }
      (state as StreamState).chunk(atNs);
      (decoder as SseDecoder).push(chunk, atNs);
      if (sinkFailed) handle?.cancel(CLOSED_WITHOUT_END);
    },
  };

  return new Promise<StreamResult>((resolve, reject) => {
    handle = transport.exchange(
      { path, method: 'POST', headers, body, deadlineMs },
      clock,
      signal,
      (o) => {
        if (sinkFailed) {
          reject(sinkError);
          return;
        }
        const { status, headers: resHeaders } = o;
        if (state === undefined || resHeaders === undefined || o.headersNs === undefined) {
          // No 2xx head: an error answer (its body buffered) or a failure before one.
          const r =
            o.text !== undefined && resHeaders !== undefined
              ? errorResult<never>(ctx, 'stream', o as WholeAnswer, startNs)
              : transportResult<never>('stream', o.error, signal, status, resHeaders, startNs, o, ctx.redact);
          resolve({ ...r, timing: EMPTY_STREAM_TIMING });
          return;
        }
        if (o.error === undefined) (decoder as SseDecoder).end(o.endNs);
        resolve(settle(ctx, state, o.error, signal, status, resHeaders, startNs, o));
      },
      bodyStream,
    );
  });
}

/** The result of a stream that got a 2xx head, from what its events showed. */
function settle(
  ctx: ResponseContext,
  state: StreamState,
  err: unknown,
  signal: AbortSignal | undefined,
  status: number,
  resHeaders: ResponseHeaders,
  startNs: number,
  t: ExchangeTimes,
): StreamResult {
  const timing = state.timing();
  const meta = responseMeta(ctx.redact, status, headerRequestId(resHeaders), resHeaders, startNs, t);
  const violations = state.violations;
  // A connection lost after the `end` event cost the caller nothing: the stream is complete.
  // Bytes that broke HTTP after it (a second answer to the request) are a finding all the same.
  if (err !== undefined && (!timing.complete || state.errorEvent !== undefined || classifyTransportError(err, signal) === 'PROTOCOL_ERROR')) {
    return { ...transportResult<never>('stream', err, signal, status, resHeaders, startNs, t, ctx.redact), violations, timing };
  }
  let code: TransportErrorCode | undefined;
  let message = '';
  if (state.errorEvent !== undefined) {
    code = 'STREAM_ERROR_EVENT';
    message = ctx.redact(errorEventMessage(state.errorEvent));
  } else if (!timing.complete) {
    code = 'STREAM_INCOMPLETE';
    message = 'stream closed without an end event';
  }
  if (code !== undefined) return { ok: false, error: createTransportError(code, `stream: ${message}`), meta, violations, timing };
  return { ok: true, value: state.summary(timing), meta, violations, timing };
}
