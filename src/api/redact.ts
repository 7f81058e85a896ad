/**
 * Keeping the token out of everything the client produces. The token itself is held only
 * in closures; text that came from the server (error messages, details, odd values quoted
 * in violations) is scrubbed in case the server echoes it back.
 */
import type { RateLimitInfo } from '../core/types.js';
import type { Redact } from './validate.js';

/** What replaces the token in scrubbed text. */
export const REDACTED = '[redacted]';

/** A redactor for one token. Cheap when the text does not contain it. */
export function createRedactor(token: string): Redact {
  return (text) => (text.includes(token) ? text.split(token).join(REDACTED) : text);
}

/**
 * Scrubs every string (keys included) inside a JSON value. Returns the same value when
 * nothing needed scrubbing; used on error details only, which are small.
 */
export function redactDeep<T>(value: T, redact: Redact): T {
  if (typeof value === 'string') return redact(value) as T;
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    let changed = false;
    const out = value.map((v: unknown) => {
      const r = redactDeep(v, redact);
      if (r !== v) changed = true;
      return r;
    });
    return (changed ? out : value) as T;
  }
  let changed = false;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    const rk = redact(k);
    const rv = redactDeep(v, redact);
    if (rk !== k || rv !== v) changed = true;
    out[rk] = rv;
  }
  return (changed ? out : value) as T;
}

/**
 * Scrubs the raw header values of rate-limit info (the parsed integers cannot hold a token).
 * Returns `info` itself when nothing needed scrubbing, so the common case allocates nothing.
 */
export function redactRateLimit(info: RateLimitInfo, redact: Redact): RateLimitInfo {
  const { limit, remaining, reset, retryAfter } = info.raw;
  const l = limit === undefined ? undefined : redact(limit);
  const m = remaining === undefined ? undefined : redact(remaining);
  const r = reset === undefined ? undefined : redact(reset);
  const a = retryAfter === undefined ? undefined : redact(retryAfter);
  if (l === limit && m === remaining && r === reset && a === retryAfter) return info;
  return { ...info, raw: { limit: l, remaining: m, reset: r, retryAfter: a } };
}

export { redactUrl, urlWithoutSecrets } from '../core/url-redact.js';
