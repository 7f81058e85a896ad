/**
 * One JSON request on a transport, timed with the client's clock. Never rejects: every
 * outcome becomes an `ApiResult` (see `response.ts`); the wire half is `transport.ts`.
 */
import type { z } from 'zod';
import type { OpName } from '../core/ops.js';
import {
  errorResult,
  isSuccessStatus,
  successResult,
  transportResult,
  type ExtraCheck,
  type ResponseContext,
  type WholeAnswer,
} from './response.js';
import type { ApiResult } from './result.js';
import type { RequestHeaders, Transport } from '../transport/transport.js';

export type { RequestHeaders } from '../transport/transport.js';

/**
 * Returns `base` with the caller's headers laid over it (names lower-cased, so a caller's
 * `Authorization` replaces ours instead of doubling it). An empty value removes a header,
 * which lets negative tests send a request without a token.
 */
export function withCallHeaders(base: RequestHeaders, extra: Readonly<Record<string, string>> | undefined): RequestHeaders {
  if (extra === undefined) return base;
  const out: Record<string, string> = { ...base };
  for (const name of Object.keys(extra)) {
    const value = extra[name];
    const key = name.toLowerCase();
    if (value === undefined || value === '') delete out[key];
    else out[key] = value;
  }
  return out;
}

/** Builds `?a=1&b=x` from the defined entries of `query` ('' when none). */
export function queryString(query: Readonly<Record<string, string | number | undefined>> | undefined): string {
  if (query === undefined) return '';
  let out = '';
  for (const key of Object.keys(query)) {
    const value = query[key];
    if (value === undefined) continue;
    out += `${out === '' ? '?' : '&'}${encodeURIComponent(key)}=${encodeURIComponent(String(value))}`;
  }
  return out;
}

/**
 * Sends one request and interprets the answer. `body` is already JSON text. `headersNs` is
 * when the response head arrived, `endNs` when the body's last byte did.
 */
export function requestJson<T>(
  ctx: ResponseContext,
  op: OpName,
  transport: Transport,
  method: 'GET' | 'POST',
  path: string,
  body: string | undefined,
  headers: RequestHeaders,
  schema: z.ZodType,
  extra: ExtraCheck | undefined,
  signal: AbortSignal | undefined,
  deadlineMs?: number,
): Promise<ApiResult<T>> {
  const clock = ctx.clock;
  const startNs = clock.nowNs();
  return new Promise((resolve) => {
    transport.exchange({ path, method, headers, body, reuseKey: op, deadlineMs }, clock, signal, (o) => {
      const { status, headers: resHeaders, text } = o;
      if (text === undefined || resHeaders === undefined || o.headersNs === undefined) {
        resolve(transportResult(op, o.error, signal, status, resHeaders, startNs, o, ctx.redact));
      } else {
        resolve(
          isSuccessStatus(status)
            ? successResult<T>(ctx, op, schema, extra, o as WholeAnswer, startNs)
            : errorResult<T>(ctx, op, o as WholeAnswer, startNs),
        );
      }
    });
  });
}
