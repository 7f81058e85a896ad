/** `GET /analytics/usage`: metrics of the runs the caller's account finished. */
import { countBuckets, GRANULARITIES, MAX_BUCKETS, type Granularity } from './analytics.js';
import { ownedFlow } from './handlers-flows.js';
import { parseQuery, sendBody, sendInvalid, type RequestContext } from './http.js';
import type { ServiceState } from './state.js';

const DAY_MS = 86_400_000;
/** Range when `start_date` is absent: this long before the end. */
export const DEFAULT_USAGE_RANGE_MS = 30 * DAY_MS;

const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/**
 * Reads an ISO 8601 date or date-time (UTC when no offset). A bare date means the start of
 * that day, or for an end date the start of the next day (the whole day is included).
 */
export function parseUsageDate(s: string, isEnd: boolean): number | undefined {
  // A `+` of an offset arrives as a space when the client did not percent-encode it.
  const m = DATE_RE.exec(s.replace(/ (\d{2}:?\d{2})$/, '+$1'));
  if (m === null) return undefined;
  const [, y, mo, d, hh, mm, ss, frac, zone] = m;
  const day = Date.UTC(Number(y), Number(mo) - 1, Number(d));
  if (new Date(day).toISOString().slice(0, 10) !== `${y}-${mo}-${d}`) return undefined;
  if (hh === undefined) return isEnd ? day + DAY_MS : day;
  if (Number(hh) > 23 || Number(mm) > 59 || Number(ss ?? 0) > 59) return undefined;
  const ms = Date.parse(`${y}-${mo}-${d}T${hh}:${mm}:${ss ?? '00'}${frac === undefined ? '' : frac.slice(0, 4)}${zone ?? 'Z'}`);
  return Number.isNaN(ms) ? undefined : ms;
}

/** Answers the usage statistics of the caller's account. */
export function getUsage(state: ServiceState, ctx: RequestContext): void {
  const q = parseQuery(ctx.query);
  const g = q.get('granularity') ?? 'day';
  if (!(GRANULARITIES as readonly string[]).includes(g)) return sendInvalid(state, ctx, 'granularity', 'must be hour, day, week or month');
  const endRaw = q.get('end_date');
  const endMs = endRaw === undefined ? state.clock.wallMs() : parseUsageDate(endRaw, true);
  if (endMs === undefined) return sendInvalid(state, ctx, 'end_date', 'must be an ISO 8601 date or date-time');
  const startRaw = q.get('start_date');
  const startMs = startRaw === undefined ? endMs - DEFAULT_USAGE_RANGE_MS : parseUsageDate(startRaw, false);
  if (startMs === undefined) return sendInvalid(state, ctx, 'start_date', 'must be an ISO 8601 date or date-time');
  if (startMs >= endMs) return sendInvalid(state, ctx, 'start_date', 'must be before end_date');
  if (countBuckets(startMs, endMs, g as Granularity) > MAX_BUCKETS) {
    return sendInvalid(state, ctx, 'granularity', `gives more than ${MAX_BUCKETS} buckets for this range`);
  }
  const flowId = q.get('flow_id');
  if (flowId !== undefined && ownedFlow(state, ctx, flowId) === undefined) return;
  const account = (ctx.tok as { account: string }).account;
  const report = state.ledger.query({ account, flowId, startMs, endMs, granularity: g as Granularity, pricePer1kTokens: state.opts.pricePer1kTokens });
  sendBody(state, ctx, 200, JSON.stringify(report));
}
