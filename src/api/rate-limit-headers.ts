/**
 * Parsing of the `X-RateLimit-*` and `Retry-After` headers (docs/reference-service.md, "Rate limits"). Runs on every response,
 * so it does four lookups and no allocation when none of the headers is present.
 */
import type { RateLimitInfo } from '../core/types.js';

import type { ResponseHeaders } from '../transport/transport.js';

export type { ResponseHeaders };


function rawValue(headers: ResponseHeaders, name: string): string | undefined {
  const v = headers[name];
  if (v === undefined) return undefined;
  // A repeated header keeps every value, so the analyser can see the inconsistency.
  return typeof v === 'string' ? v : v.join(', ');
}

/** A plain decimal integer (optional '-', surrounding spaces allowed), else undefined. Runs per response: no regex, no trim copy. */
function toInteger(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  let i = 0;
  let end = raw.length;
  while (i < end && (raw.charCodeAt(i) === 32 || raw.charCodeAt(i) === 9)) i++;
  while (end > i && (raw.charCodeAt(end - 1) === 32 || raw.charCodeAt(end - 1) === 9)) end--;
  const negative = i < end && raw.charCodeAt(i) === 45;
  if (negative) i++;
  if (i === end) return undefined;
  let n = 0;
  for (; i < end; i++) {
    const c = raw.charCodeAt(i) - 48;
    if (c < 0 || c > 9) return undefined;
    n = n * 10 + c;
  }
  if (!Number.isSafeInteger(n)) return undefined;
  return negative ? -n : n;
}

/**
 * Reads the rate-limit headers of one response. Values that are not plain integers parse
 * to undefined but keep their raw text. Returns undefined only when none of
 * `X-RateLimit-Limit`, `-Remaining`, `-Reset` and `Retry-After` is present.
 */
export function parseRateLimitHeaders(headers: ResponseHeaders): RateLimitInfo | undefined {
  const limit = rawValue(headers, 'x-ratelimit-limit');
  const remaining = rawValue(headers, 'x-ratelimit-remaining');
  const reset = rawValue(headers, 'x-ratelimit-reset');
  const retryAfter = rawValue(headers, 'retry-after');
  if (limit === undefined && remaining === undefined && reset === undefined && retryAfter === undefined) {
    return undefined;
  }
  return {
    limit: toInteger(limit),
    remaining: toInteger(remaining),
    reset: toInteger(reset),
    raw: { limit, remaining, reset, retryAfter },
  };
}

/** Longest wait a header may ask for before a retry is taken at its word (about 11 days). */
const MAX_RETRY_WAIT_S = 1_000_000;
/** A Reset below this many seconds reads as a delta whatever the service's semantics. */
const SMALL_RESET_S = 3600;

/**
 * Seconds to wait before retrying a throttled request: `Retry-After` in whole seconds, else a
 * small `X-RateLimit-Reset` taken as a delta; undefined when neither says (an HTTP-date
 * Retry-After, garbage, or absurd values). The one reading of these headers for every retry.
 */
export function retryWaitSeconds(info: RateLimitInfo | undefined): number | undefined {
  const ra = info?.raw.retryAfter?.trim();
  if (ra !== undefined && /^\d{1,7}$/.test(ra) && Number(ra) <= MAX_RETRY_WAIT_S) return Number(ra);
  const reset = info?.reset;
  if (reset !== undefined && reset >= 0 && reset < SMALL_RESET_S) return reset;
  return undefined;
}
