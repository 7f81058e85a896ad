/**
 * A request outside the interface's operations (`Client.http`, a journey's `vu.http`): an auth
 * call, a health page, the user's own webhook. Same transports and timing as the operations;
 * no schema, so the body comes back as text. Never rejects for what the target does: a non-2xx
 * answer is `ok: false` classified by its status, and the response is kept beside the error.
 */
import { apiErrorCodeOfStatus } from '../core/codes.js';
import { InvalidArgumentError } from '../core/errors.js';
import { createApiError } from './errors.js';
import { headerRequestId, isSuccessStatus, responseMeta, transportResult, type ResponseContext } from './response.js';
import type { ApiResult } from './result.js';
import type { RequestHeaders, Transport } from '../transport/transport.js';

/** Methods `http` sends (HEAD is left out: a response without the body its head announces). */
export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
/** One of `HTTP_METHODS`. */
export type HttpMethod = (typeof HTTP_METHODS)[number];

/** A request of `Client.http`. Give `url` (absolute, or relative to the base URL) or `path`. */
export interface HttpRequest {
  /** Default GET, or POST when there is a body. */
  readonly method?: HttpMethod;
  /** An absolute `http:`/`https:` URL, or one relative to the base URL (`health` → `<baseUrl>/health`). */
  readonly url?: string;
  /** A path under the base URL (`/health` → `<baseUrl>/health`), with its query if any. */
  readonly path?: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** Text as it is, anything else as JSON (with `content-type: application/json` unless given). */
  readonly body?: unknown;
  /**
   * Send the API token (`Authorization: Bearer …`): by default only to the API's own origin;
   * `true` sends it to another origin too, `false` to none.
   */
  readonly auth?: boolean;
}

/** The answer to a `Client.http` request. Plain data. */
export interface HttpResponse {
  readonly status: number;
  /** Response headers, names lower-case. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/** What `Client.http` resolves to: `response` whenever an answer arrived, 2xx or not. */
export type HttpResult = ApiResult<HttpResponse> & { readonly response?: HttpResponse };

/** Where a request goes, resolved against the base URL. Throws `InvalidArgumentError` for a bad one. */
export function httpTarget(req: HttpRequest, baseUrl: string): { readonly origin: string; readonly path: string } {
  if ((req.url === undefined) === (req.path === undefined)) throw new InvalidArgumentError('http: give url or path (one of them)');
  let url: URL;
  try {
    url = req.url !== undefined ? new URL(req.url, `${baseUrl}/`) : new URL(`${baseUrl}${req.path?.startsWith('/') ? '' : '/'}${req.path ?? ''}`);
  } catch {
    throw new InvalidArgumentError(`http: ${JSON.stringify(req.url ?? req.path)} is not a URL or path`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new InvalidArgumentError(`http: ${url.protocol} URLs are not sent; use http: or https:`);
  if (url.username !== '' || url.password !== '') throw new InvalidArgumentError('http: credentials in the URL are not sent; put them in headers');
  return { origin: url.origin, path: `${url.pathname}${url.search}` };
}

/** The method of a request, checked. */
export function httpMethod(req: HttpRequest): HttpMethod {
  const m = req.method ?? (req.body === undefined ? 'GET' : 'POST');
  if (!(HTTP_METHODS as readonly string[]).includes(m)) throw new InvalidArgumentError(`http: method ${JSON.stringify(m)} is not one of ${HTTP_METHODS.join(', ')}`);
  return m;
}

const flat = (headers: Readonly<Record<string, string | string[] | undefined>>): Record<string, string> => {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) if (v !== undefined) out[k] = Array.isArray(v) ? v.join(', ') : v;
  return out;
};

/** Sends one request on `transport`; `label` names it in messages (`http:login`). */
export function requestHttp(
  ctx: ResponseContext,
  label: string,
  transport: Transport,
  method: HttpMethod,
  path: string,
  body: string | undefined,
  headers: RequestHeaders,
  signal: AbortSignal | undefined,
  deadlineMs: number | undefined,
): Promise<HttpResult> {
  const clock = ctx.clock;
  const startNs = clock.nowNs();
  return new Promise((resolve) => {
    transport.exchange({ path, method, headers, body, reuseKey: label, deadlineMs }, clock, signal, (o) => {
      const { status, headers: resHeaders, text } = o;
      if (text === undefined || resHeaders === undefined || o.headersNs === undefined) {
        resolve(transportResult(label, o.error, signal, status, resHeaders, startNs, o, ctx.redact));
        return;
      }
      const response: HttpResponse = Object.freeze({ status, headers: Object.freeze(flat(resHeaders)), body: text });
      const meta = responseMeta(ctx.redact, status, headerRequestId(resHeaders), resHeaders, startNs, o);
      if (isSuccessStatus(status)) resolve({ ok: true, value: response, response, meta, violations: [] });
      else resolve({ ok: false, error: createApiError(apiErrorCodeOfStatus(status) ?? 'UNKNOWN', status, `${label}: HTTP ${status}`, undefined, meta.requestId), response, meta, violations: [] });
    });
  });
}
