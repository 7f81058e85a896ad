/**
 * Rate limits and what every answer showed: the unit of Reset, whether the headers came on
 * every response (stated), `Retry-After` on a 429 (a 429 is provoked only when the remaining
 * budget is small enough to reach within the battery), content types, request ids.
 */
import type { ProbeContext } from './context.js';
import type { ResetSample } from './recorder.js';

/** A 429 is provoked only when at most this many requests remain in the window. */
export const PROVOKE_BUDGET = 40;

/** What the Reset values say their unit is. */
export type ResetUnit = 'delta-seconds' | 'epoch-seconds' | 'epoch-milliseconds' | 'unknown';

/**
 * Decides the unit of Reset: values near the current Unix time (by the response's `Date`, or
 * the local clock) are epoch seconds or milliseconds; small values are seconds to wait.
 */
export function resetUnitOf(samples: readonly ResetSample[]): ResetUnit {
  if (samples.length === 0) return 'unknown';
  let epochS = 0;
  let epochMs = 0;
  let delta = 0;
  for (const s of samples) {
    const nowMs = s.dateMs ?? s.atMs;
    if (Math.abs(s.value * 1000 - nowMs) < 86_400_000) epochS++;
    else if (Math.abs(s.value - nowMs) < 86_400_000) epochMs++;
    else if (s.value >= 0 && s.value <= 86_400 * 31) delta++;
  }
  const n = samples.length;
  if (epochS === n) return 'epoch-seconds';
  if (epochMs === n) return 'epoch-milliseconds';
  if (delta === n) return 'delta-seconds';
  return 'unknown';
}

/** Tries to reach a 429 when cheap, then reports Reset's unit, Retry-After and the headers. */
export async function probeRateLimits(ctx: ProbeContext): Promise<void> {
  const t = ctx.rec.tallies;
  let provoked = '';
  if (t.responses429.length === 0) {
    const remaining = t.lastRemaining;
    if (remaining !== undefined && remaining <= PROVOKE_BUDGET) {
      for (let i = 0; i <= remaining + 2; i++) {
        const a = await ctx.send({ label: 'GET /flows?limit=1 (to the limit)', op: 'listFlows', method: 'GET', path: '/flows', query: { limit: '1' }, retryOn429: false });
        if (a === undefined || a.status === 429 || a.status === 0) break;
      }
      provoked = t.responses429.length > 0 ? `; a 429 was provoked after ${remaining} remaining requests` : '';
    }
  }

  const unit = resetUnitOf(t.resets);
  const values = t.resets.map((r) => r.value);
  ctx.rec.observe({
    id: 'rateLimit.resetUnit',
    topic: 'rate limits',
    question: 'What unit does X-RateLimit-Reset use?',
    answer: values.length === 0 ? 'not observed: no response carried X-RateLimit-Reset' : `${unit} (values ${Math.min(...values)}–${Math.max(...values)} in ${values.length} responses)`,
    status: values.length === 0 ? 'not-observed' : 'observed',
    value: unit,
  });
  const limits = [...new Set(t.limits)];
  ctx.rec.observe({
    id: 'rateLimit.limit',
    topic: 'rate limits',
    question: 'What limit does the target advertise for this token?',
    answer: limits.length === 0 ? 'none advertised' : `X-RateLimit-Limit ${limits.join(', ')}; ${t.lastRemaining ?? '?'} remaining at the end`,
    status: limits.length === 0 ? 'not-observed' : 'observed',
    value: limits[0] ?? null,
  });

  for (const [h, missing] of Object.entries(t.missingRateHeaders)) {
    if (missing === 0) continue;
    ctx.rec.violate({ rule: 'rateLimit.headers', path: h, expected: 'on every response', got: `missing on ${missing} of ${t.apiResponses} responses`, request: '(many)' });
  }

  const n429 = t.responses429.length;
  const remaining = t.lastRemaining;
  ctx.rec.observe({
    id: 'rateLimit.retryAfter',
    topic: 'rate limits',
    question: 'Does a 429 carry a retry-delay header (Retry-After)?',
    answer:
      n429 === 0
        ? `not observed: no 429 was met, and ${remaining === undefined ? 'no Remaining was advertised' : `${remaining} requests remained`} (provoked only within ${PROVOKE_BUDGET})`
        : `${t.retryAfterOn429} of ${n429} 429 responses carried Retry-After${t.retryAfterOn429 > 0 ? ` (e.g. ${t.responses429.find((a) => a.headers['retry-after'] !== undefined)?.headers['retry-after']})` : ''}${provoked}`,
    status: n429 === 0 ? 'not-observed' : 'observed',
    ...(n429 > 0 ? { value: { responses429: n429, withRetryAfter: t.retryAfterOn429 } } : {}),
  });
}

/** Content types, request ids and error-body extras, from every answer of the battery. */
export function observeAnswerTallies(ctx: ProbeContext): void {
  const t = ctx.rec.tallies;
  const types = Object.fromEntries(Object.entries(t.contentTypes).map(([k, v]) => [k, [...v].sort()]));
  ctx.rec.observe({
    id: 'content.types',
    topic: 'content',
    question: 'Which content types does each operation answer with?',
    answer: Object.entries(types).map(([k, v]) => `${k}: ${v.join(', ')}`).join('; ') || 'no answers',
    value: types,
  });
  ctx.rec.observe({
    id: 'errors.requestId',
    topic: 'errors',
    question: 'Do answers carry a request id beyond the error body (an x-request-id header)?',
    answer: `x-request-id on ${t.successWithRequestIdHeader} of ${t.successes} successful answers and ${t.errorsWithRequestIdHeader} of ${t.errors} error answers`,
    value: { successes: t.successWithRequestIdHeader, successTotal: t.successes, errors: t.errorsWithRequestIdHeader, errorTotal: t.errors },
  });
  ctx.rec.observe({
    id: 'errors.extras',
    topic: 'errors',
    question: 'Do error bodies carry codes beyond the seven, or fields beyond code, message, details, request_id?',
    answer:
      `codes beyond the table: ${t.errorCodesBeyondTable.size === 0 ? 'none' : [...t.errorCodesBeyondTable].join(', ')}; ` +
      `extra fields: ${t.errorExtraFields.size === 0 ? 'none' : [...t.errorExtraFields].join(', ')}`,
  });
}
