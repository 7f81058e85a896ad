/**
 * The stream operation over HTTP: sends the request, stamps each body chunk with the clock
 * the moment it arrives (before decoding), decodes events, and settles into a `StreamResult`
 * that always carries the timing seen, complete or not.
 */
import type { Dispatcher } from 'undici';
import type { TransportErrorCode } from '../core/codes.js';
import { createTransportError } from './errors.js';
import { parseRateLimitHeaders, type ResponseHeaders } from './rate-limit-headers.js';
import type { RequestHeaders } from './request.js';
import { errorResult, headerRequestId, isSuccessStatus, transportResult, type ResponseContext } from './response.js';
import { EMPTY_STREAM_TIMING, type StreamResult, type TimedStreamEvent } from './result.js';
import { createSseDecoder } from './sse-decoder.js';
import { StreamState } from './stream-state.js';
import { isJsonObject } from './validate.js';

/** Receives each event as it is decoded. */
export type StreamEventSink = (event: TimedStreamEvent) => void;

/** Stands for a body closed without 'end' or 'error'; classified as ABORTED. */
const CLOSED_WITHOUT_END = { code: 'UND_ERR_ABORTED' };

const EVENT_STREAM_RE = /^text\/event-stream\b/i;

/** Names the error event's code (`code` or `error.code`) when it gives one. */
function errorEventMessage(data: Record<string, unknown>): string {
  const inner = isJsonObject(data.error) ? data.error.code : undefined;
  const code = typeof data.code === 'string' ? data.code : typeof inner === 'string' ? inner : undefined;
  return code === undefined ? 'stream sent an error event' : `stream sent an error event (${code})`;
}

/**
 * Runs one stream. Resolves for every HTTP and transport outcome; rejects only when `sink`
 * throws (a programmer error), after cancelling the body.
 */
export async function runStream(
  ctx: ResponseContext,
  dispatcher: Dispatcher,
  path: string,
  body: string,
  headers: RequestHeaders,
  signal: AbortSignal | undefined,
  sink: StreamEventSink | undefined,
): Promise<StreamResult> {
  const clock = ctx.clock;
  const startNs = clock.nowNs();
  let res: Dispatcher.ResponseData;
  try {
    res = await dispatcher.request({ path, method: 'POST', headers, body, signal });
  } catch (err) {
    const r = transportResult<never>('stream', err, signal, 0, undefined, startNs, undefined, clock.nowNs());
    return { ...r, timing: EMPTY_STREAM_TIMING };
  }
  const headersNs = clock.nowNs();
  const status = res.statusCode;
  const resHeaders: ResponseHeaders = res.headers;
  if (!isSuccessStatus(status)) {
    let text: string;
    try {
      text = await res.body.text();
    } catch (err) {
      const r = transportResult<never>('stream', err, signal, status, resHeaders, startNs, headersNs, clock.nowNs());
      return { ...r, timing: EMPTY_STREAM_TIMING };
    }
    return { ...errorResult<never>(ctx, 'stream', status, resHeaders, text, startNs, headersNs, clock.nowNs()), timing: EMPTY_STREAM_TIMING };
  }

  const state = new StreamState(ctx.validate, ctx.redact);
  const contentType = resHeaders['content-type'];
  if (ctx.validate && (typeof contentType !== 'string' || !EVENT_STREAM_RE.test(contentType))) {
    state.violate('headers.content-type', 'text/event-stream', contentType === undefined ? 'missing' : ctx.redact(String(contentType)));
  }
  let sinkError: unknown;
  let sinkFailed = false;
  const decoder = createSseDecoder((e) => {
    state.add(e);
    if (sink === undefined || sinkFailed) return;
    try {
      sink(e);
    } catch (err) {
      sinkFailed = true;
      sinkError = err;
    }
  });
  const stream = res.body;

  const settle = (err: unknown, endNs: number): StreamResult => {
    const timing = state.timing();
    const meta = { status, requestId: headerRequestId(resHeaders), rateLimit: parseRateLimitHeaders(resHeaders), startNs, headersNs, endNs };
    const violations = state.violations;
    // A connection lost after the `end` event cost the caller nothing: the stream is complete.
    if (err !== undefined && (!timing.complete || state.errorEvent !== undefined)) return { ...transportResult<never>('stream', err, signal, status, resHeaders, startNs, headersNs, endNs), violations, timing };
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
  };

  return new Promise<StreamResult>((resolve, reject) => {
    let done = false;
    const finish = (err: unknown, endNs: number): void => {
      if (done) return;
      done = true;
      if (sinkFailed) reject(sinkError);
      else resolve(settle(err, endNs));
    };
    stream.on('data', (chunk: Buffer) => {
      const atNs = clock.nowNs();
      state.chunk(atNs);
      decoder.push(chunk, atNs);
      if (sinkFailed) stream.destroy();
    });
    stream.once('end', () => {
      const endNs = clock.nowNs();
      decoder.end(endNs);
      finish(undefined, endNs);
    });
    stream.on('error', (err) => finish(err, clock.nowNs()));
    // A body destroyed without an error (a cancel) emits neither 'end' nor 'error'.
    stream.once('close', () => finish(CLOSED_WITHOUT_END, clock.nowNs()));
  });
}
