/**
 * Per-response checks of the `X-RateLimit-*` headers against what the interface states
 * (three integer headers on every response). Findings are counted by kind, never thrown.
 */
import type { RateLimitInfo } from '../core/types.js';

/**
 * Kinds of header findings, as the keys of report.json `rateLimit.headerViolations`:
 * - `missing-limit|remaining|reset`: the header was absent;
 * - `non-integer-limit|remaining|reset`: present but not an integer;
 * - `negative-limit|remaining|reset`: an integer below zero;
 * - `remaining-above-limit`: Remaining greater than Limit;
 * - `remaining-nonzero-on-429`: a 429 that says requests remain;
 * - `limit-changed-within-window`: two Limits in one window;
 * - `remaining-increased-within-window`: a later-sent request saw more remaining than an earlier one;
 * - `remaining-below-count`: an accepted answer said fewer remained than the limit less every
 *   request the client could have had counted by then (used up before it could have been);
 * - `remaining-above-count`: it said more remained than the limit less the accepted requests
 *   surely counted before it;
 * - `reset-not-honoured`: a 429 sent after a reset the service promised (Reset, Retry-After),
 *   before it let anything through again.
 * The last three come from the evidence settled at the end (`rate-limit-judge.ts`);
 * `limit-changed-within-window` and `remaining-increased-within-window` hold for fixed windows only.
 */
export type HeaderViolationKind =
  | `${'missing' | 'non-integer' | 'negative'}-${'limit' | 'remaining' | 'reset'}`
  | 'remaining-above-limit'
  | 'remaining-nonzero-on-429'
  | 'limit-changed-within-window'
  | 'remaining-increased-within-window'
  | 'remaining-below-count'
  | 'remaining-above-count'
  | 'reset-not-honoured';

/** Counts findings by kind. */
export type HeaderViolationCounts = Map<HeaderViolationKind, number>;

/** Adds one finding. */
export function countViolation(counts: HeaderViolationCounts, kind: HeaderViolationKind): void {
  counts.set(kind, (counts.get(kind) ?? 0) + 1);
}

const FIELDS = ['limit', 'remaining', 'reset'] as const;

/** Checks the headers of one response that arrived (status > 0) on their own. */
export function checkHeaders(info: RateLimitInfo, status: number, counts: HeaderViolationCounts): void {
  for (const f of FIELDS) {
    const raw = info.raw[f];
    const parsed = info[f];
    if (raw === undefined) countViolation(counts, `missing-${f}`);
    else if (parsed === undefined || !Number.isInteger(parsed)) countViolation(counts, `non-integer-${f}`);
    else if (parsed < 0) countViolation(counts, `negative-${f}`);
  }
  const { limit, remaining } = info;
  if (limit !== undefined && remaining !== undefined && remaining > limit) {
    countViolation(counts, 'remaining-above-limit');
  }
  if (status === 429 && remaining !== undefined && remaining > 0) {
    countViolation(counts, 'remaining-nonzero-on-429');
  }
}

/** The parsed value when it is a usable non-negative integer. */
export function usable(n: number | undefined): number | undefined {
  return n !== undefined && Number.isInteger(n) && n >= 0 ? n : undefined;
}

/** Retry-After in whole seconds (an HTTP-date or garbage is no evidence of when a window frees). */
export function retryAfterSeconds(info: RateLimitInfo | undefined): number | undefined {
  const raw = info?.raw.retryAfter;
  if (raw === undefined) return undefined;
  const n = Number(raw.trim());
  return Number.isInteger(n) && n >= 0 && n <= 1e6 ? n : undefined;
}
