/**
 * Signing of outbound notifications (a contract the interface leaves unsaid, so flowgauge fixes
 * one). The reference service signs every delivery this way and
 * the toolkit's receivers verify with the same helpers, so the scheme lives in one place.
 *
 * Scheme: header `X-Flowgauge-Signature: t=<unix seconds>,v1=<hex>` where
 * `<hex> = HMAC-SHA256(secret, "<t>.<raw body>")`. Several `v1=` entries may appear (secret
 * rotation); one matching is enough. `t` is checked against a tolerance to refuse replays.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** Name of the signature header (HTTP header names are case-insensitive). */
export const SIGNATURE_HEADER = 'X-Flowgauge-Signature';

/** Default replay tolerance: a signature older or newer than this many seconds is refused. */
export const DEFAULT_SIGNATURE_TOLERANCE_S = 300;

/** Hex HMAC-SHA256 of `${t}.${body}` under `secret`. */
export function computeSignature(secret: string, t: number, body: string | Uint8Array): string {
  const mac = createHmac('sha256', secret);
  mac.update(`${t}.`);
  mac.update(body);
  return mac.digest('hex');
}

/** The full header value for a delivery: `t=<t>,v1=<hex>`. `t` is Unix seconds. */
export function signPayload(secret: string, t: number, body: string | Uint8Array): string {
  return `t=${t},v1=${computeSignature(secret, t, body)}`;
}

/** A parsed signature header. */
export interface ParsedSignature {
  readonly t: number;
  readonly v1: readonly string[];
}

/** Reads `t=…,v1=…[,v1=…]`; `undefined` when the header is not of that shape. */
export function parseSignatureHeader(header: string): ParsedSignature | undefined {
  let t: number | undefined;
  const v1: string[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq < 0) return undefined;
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 't') {
      if (!/^\d{1,12}$/.test(value)) return undefined;
      t = Number(value);
    } else if (key === 'v1') {
      if (!/^[0-9a-f]{64}$/i.test(value)) return undefined;
      v1.push(value.toLowerCase());
    }
    // Unknown keys are ignored so a future scheme can be added beside v1.
  }
  if (t === undefined || v1.length === 0) return undefined;
  return { t, v1 };
}

/** Options of `verifySignature`. */
export interface VerifyOptions {
  /** Current Unix seconds; defaults to the system time. */
  readonly nowS?: number;
  /** Allowed distance between `t` and now, in seconds (default 300; `Infinity` disables). */
  readonly toleranceS?: number;
}

/** Outcome of a verification; `reason` says why it failed. */
export type SignatureCheck =
  | { readonly ok: true; readonly t: number }
  | { readonly ok: false; readonly reason: 'missing' | 'malformed' | 'expired' | 'mismatch' };

/**
 * Verifies a delivery: the header parses, `t` is within tolerance of now, and one `v1` equals
 * the HMAC of the raw body (compared in constant time). Pass the body exactly as received.
 */
export function verifySignature(
  secret: string,
  header: string | readonly string[] | undefined | null,
  body: string | Uint8Array,
  options: VerifyOptions = {},
): SignatureCheck {
  const raw = Array.isArray(header) ? header[0] : header;
  if (typeof raw !== 'string' || raw === '') return { ok: false, reason: 'missing' };
  const parsed = parseSignatureHeader(raw);
  if (parsed === undefined) return { ok: false, reason: 'malformed' };
  const nowS = options.nowS ?? Math.floor(Date.now() / 1000);
  const tolerance = options.toleranceS ?? DEFAULT_SIGNATURE_TOLERANCE_S;
  if (Math.abs(nowS - parsed.t) > tolerance) return { ok: false, reason: 'expired' };
  const expected = Buffer.from(computeSignature(secret, parsed.t, body), 'hex');
  for (const candidate of parsed.v1) {
    const got = Buffer.from(candidate, 'hex');
    if (got.length === expected.length && timingSafeEqual(got, expected)) return { ok: true, t: parsed.t };
  }
  return { ok: false, reason: 'mismatch' };
}
