/**
 * Client options, resolved once at construction. Every problem is collected into one
 * `ConfigError`; messages never quote the token.
 */
import { createSystemClock, type Clock } from '../core/clock.js';
import { ConfigError, InvalidArgumentError, type ConfigIssue } from '../core/errors.js';
import { MAX_BODY_BYTES } from '../transport/bounded-body.js';
import type { TransportLimits } from '../transport/transport.js';

/** Options of `createClient`. */
export interface ClientOptions {
  /** API address ending in the version segment, e.g. `http://127.0.0.1:4000/v1`. */
  baseUrl: string;
  /** Bearer token. Never exposed by the client (inspect, JSON, messages). */
  token: string;
  /** Origin (and optional path prefix) of the trigger address; default: origin of `baseUrl`. */
  webhookHost?: string;
  /** Connections per origin; default 64. */
  connections?: number;
  /** Requests in flight per connection; default 1. */
  pipelining?: number;
  /**
   * Timeouts in ms; 0 disables one. `connectMs` (default 10 s), `headersMs` (30 s) and `bodyMs`
   * (60 s without a byte) catch a stall; `requestMs` (default 60 s, as k6's) is the whole
   * request's deadline, queueing and a stream's whole body included, so a target that trickles
   * forever is cut too. A call's `deadlineMs` replaces it.
   */
  timeouts?: { connectMs?: number; headersMs?: number; bodyMs?: number; requestMs?: number };
  /** Time source of every timing; default the system clock. */
  clock?: Clock;
  /** Check bodies against the interface's schemas; default true. */
  validate?: boolean;
  /**
   * Largest JSON body the client buffers, in bytes; default 16 MiB. A larger one fails as
   * `MALFORMED_BODY` instead of growing memory without bound (streams are not buffered).
   */
  maxBodyBytes?: number;
  /** Send the bearer to the trigger address too; default false (its authentication is not stated). */
  triggerAuth?: boolean;
  /**
   * The HTTP implementation: `h1` (the client's own HTTP/1.1 connections, `http:` only),
   * `undici`, or `auto` (default): `h1` for `http:` origins, `undici` for `https:`.
   */
  transport?: TransportChoice;
  /** TLS of `https:` origins: extra trusted CA certificates (PEM), or no verification at all. */
  tls?: { ca?: string; insecure?: boolean };
  /**
   * Headers sent with every API request (a gateway's key, a tenant header). Values are never
   * printed; `authorization`, `host`, `content-length` and `transfer-encoding` are refused.
   */
  headers?: Readonly<Record<string, string>>;
  /**
   * An HTTP proxy for `https:` origins (`CONNECT` tunnels, as `HTTPS_PROXY`), and the hosts to
   * reach directly (`NO_PROXY`'s syntax: comma-separated hosts, `.domain` suffixes, `host:port`, `*`).
   * `http:` origins are always reached directly.
   */
  proxy?: { url: string; noProxy?: string };
}

/** Which HTTP implementation a client uses. */
export type TransportChoice = 'auto' | 'h1' | 'undici';

const TRANSPORTS: readonly TransportChoice[] = ['auto', 'h1', 'undici'];

/** Options with every default filled. The token is deliberately not part of it. */
export interface ResolvedClientOptions extends TransportLimits {
  /** `baseUrl` without a trailing slash. */
  readonly baseUrl: string;
  readonly origin: string;
  /** Path of `baseUrl`, e.g. `/v1`. */
  readonly basePath: string;
  /** `webhookHost` without a trailing slash. */
  readonly webhookHost: string;
  readonly webhookOrigin: string;
  /** Path prefix of `webhookHost` ('' for none). */
  readonly webhookPath: string;
  readonly clock: Clock;
  readonly validate: boolean;
  readonly triggerAuth: boolean;
  /** `auto` is kept as asked; each origin picks its implementation by its scheme. */
  readonly transport: TransportChoice;
  readonly tls: { readonly ca: string | undefined; readonly insecure: boolean };
  /** Extra headers of every API request, names lower-cased. */
  readonly headers: Readonly<Record<string, string>>;
  readonly proxy: { readonly url: string; readonly noProxy: string } | undefined;
}

const HEADER_NAME_RE = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const RESERVED_HEADERS = new Set(['authorization', 'host', 'content-length', 'transfer-encoding', 'connection']);

function headersOption(value: unknown, issues: ConfigIssue[]): Record<string, string> {
  if (value === undefined) return {};
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    issues.push({ path: 'headers', message: 'must be an object of header names to values' });
    return {};
  }
  const out: Record<string, string> = {};
  for (const [name, v] of Object.entries(value)) {
    const lower = name.toLowerCase();
    // The value is never quoted: it may be a secret.
    if (!HEADER_NAME_RE.test(name)) issues.push({ path: `headers["${name.slice(0, 60)}"]`, message: 'is not a header name' });
    else if (RESERVED_HEADERS.has(lower)) issues.push({ path: `headers["${name}"]`, message: 'is set by the client itself; pass the token with token (--token)' });
    else if (typeof v !== 'string' || BAD_TOKEN_RE.test(v)) issues.push({ path: `headers["${name}"]`, message: 'must be a string without control characters' });
    else out[lower] = v;
  }
  return out;
}

/** Default cap on a buffered response body. */
export const DEFAULT_MAX_BODY_BYTES = MAX_BODY_BYTES;

/** `user-agent` of every request. */
export const USER_AGENT = 'flowgauge/0.1.0';

const VERSION_SEGMENT_RE = /\/v\d+$/;
// Header values may not carry control characters; a token with one could split headers.
const BAD_TOKEN_RE = /[\u0000-\u001f\u007f]/;

interface ParsedAddress {
  readonly normalized: string;
  readonly origin: string;
  readonly path: string;
}

function parseAddress(value: unknown, path: string, issues: ConfigIssue[]): ParsedAddress | undefined {
  if (typeof value !== 'string' || value === '') {
    issues.push({ path, message: 'must be a URL string' });
    return undefined;
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    issues.push({ path, message: 'is not a valid URL' });
    return undefined;
  }
  const before = issues.length;
  if (url.protocol !== 'http:' && url.protocol !== 'https:') issues.push({ path, message: 'must use http or https' });
  if (url.username !== '' || url.password !== '') issues.push({ path, message: 'must not carry credentials; use token' });
  if (url.search !== '' || url.hash !== '') issues.push({ path, message: 'must not have a query or fragment' });
  if (issues.length > before) return undefined;
  const pathname = url.pathname.replace(/\/+$/, '');
  return { normalized: url.origin + pathname, origin: url.origin, path: pathname };
}

function intOption(value: unknown, fallback: number, min: number, path: string, issues: ConfigIssue[]): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min) {
    issues.push({ path, message: `must be an integer >= ${min}` });
    return fallback;
  }
  return value;
}

function proxyOption(value: ClientOptions['proxy'], issues: ConfigIssue[]): ResolvedClientOptions['proxy'] {
  if (value === undefined) return undefined;
  let url: URL | undefined;
  try {
    url = new URL(String(value.url));
  } catch {
    url = undefined;
  }
  if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    // The value may carry credentials: it is not quoted.
    issues.push({ path: 'proxy.url', message: 'must be an http:// or https:// proxy address, e.g. http://proxy.internal:3128' });
    return undefined;
  }
  return Object.freeze({ url: url.href, noProxy: typeof value.noProxy === 'string' ? value.noProxy : '' });
}

/** The whole-request deadline when none is set (k6's default). */
export const DEFAULT_REQUEST_MS = 60_000;

function msOption(value: unknown, fallback: number, path: string, issues: ConfigIssue[]): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    issues.push({ path, message: 'must be a number of milliseconds >= 0' });
    return fallback;
  }
  return value;
}

function boolOption(value: unknown, fallback: boolean, path: string, issues: ConfigIssue[]): boolean {
  if (value === undefined) return fallback;
  if (typeof value !== 'boolean') {
    issues.push({ path, message: 'must be a boolean' });
    return fallback;
  }
  return value;
}

function transportOption(value: unknown, issues: ConfigIssue[]): TransportChoice {
  if (value === undefined) return 'auto';
  if (typeof value === 'string' && (TRANSPORTS as readonly string[]).includes(value)) return value as TransportChoice;
  issues.push({ path: 'transport', message: `must be one of ${TRANSPORTS.join(', ')}` });
  return 'auto';
}

/** Checks the token without ever quoting it. */
function checkToken(token: unknown, issues: ConfigIssue[]): void {
  if (typeof token !== 'string' || token.trim() === '') issues.push({ path: 'token', message: 'must be a non-empty string' });
  else if (BAD_TOKEN_RE.test(token)) issues.push({ path: 'token', message: 'must not contain control characters' });
}

/** Validates options and fills defaults; throws `ConfigError` listing every problem. */
export function resolveClientOptions(options: ClientOptions): ResolvedClientOptions {
  if (typeof options !== 'object' || options === null) {
    throw new InvalidArgumentError('createClient: options must be an object');
  }
  const issues: ConfigIssue[] = [];
  const base = parseAddress(options.baseUrl, 'baseUrl', issues);
  if (base !== undefined && !VERSION_SEGMENT_RE.test(base.path)) {
    issues.push({ path: 'baseUrl', message: 'must end with the version segment, e.g. /v1' });
  }
  checkToken(options.token, issues);
  const hook = options.webhookHost === undefined ? base : parseAddress(options.webhookHost, 'webhookHost', issues);
  const t = options.timeouts ?? {};
  if (typeof t !== 'object' || t === null) issues.push({ path: 'timeouts', message: 'must be an object' });
  const clock = options.clock ?? createSystemClock();
  if (typeof clock !== 'object' || clock === null || typeof clock.nowNs !== 'function') {
    issues.push({ path: 'clock', message: 'must be a Clock' });
  }
  const resolved = {
    connections: intOption(options.connections, 64, 1, 'connections', issues),
    pipelining: intOption(options.pipelining, 1, 0, 'pipelining', issues),
    connectMs: msOption(t.connectMs, 10_000, 'timeouts.connectMs', issues),
    headersMs: msOption(t.headersMs, 30_000, 'timeouts.headersMs', issues),
    bodyMs: msOption(t.bodyMs, 60_000, 'timeouts.bodyMs', issues),
    requestMs: msOption(t.requestMs, DEFAULT_REQUEST_MS, 'timeouts.requestMs', issues),
    maxBodyBytes: intOption(options.maxBodyBytes, DEFAULT_MAX_BODY_BYTES, 1, 'maxBodyBytes', issues),
    validate: boolOption(options.validate, true, 'validate', issues),
    triggerAuth: boolOption(options.triggerAuth, false, 'triggerAuth', issues),
    transport: transportOption(options.transport, issues),
    tls: Object.freeze({ ca: typeof options.tls?.ca === 'string' ? options.tls.ca : undefined, insecure: options.tls?.insecure === true }),
    headers: Object.freeze(headersOption(options.headers, issues)),
    proxy: proxyOption(options.proxy, issues),
  };
  const https = [base, hook].some((a) => a !== undefined && a.origin.startsWith('https:'));
  if (resolved.transport === 'h1' && https) {
    issues.push({ path: 'transport', message: "'h1' speaks plain http only; use 'auto' or 'undici' for https addresses" });
  }
  if (issues.length > 0 || base === undefined || hook === undefined) throw new ConfigError(issues, 'client options');
  return Object.freeze({
    baseUrl: base.normalized,
    origin: base.origin,
    basePath: base.path,
    webhookHost: options.webhookHost === undefined ? base.origin : hook.normalized,
    webhookOrigin: hook.origin,
    webhookPath: options.webhookHost === undefined ? '' : hook.path,
    clock,
    ...resolved,
  });
}
