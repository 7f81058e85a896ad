/**
 * Usage analytics computed from the runs the service actually finished. Each finished run
 * leaves one compact row; a query scans them (fine for the volumes of a load test).
 */

/** Buckets of the breakdown. */
export type Granularity = 'hour' | 'day' | 'week' | 'month';

/** The granularities the interface names. */
export const GRANULARITIES: readonly Granularity[] = ['hour', 'day', 'week', 'month'];

/** A query, already validated. Times are wall ms; `endMs` is exclusive. */
export interface UsageQuery {
  readonly account: string;
  readonly flowId: string | undefined;
  readonly startMs: number;
  readonly endMs: number;
  readonly granularity: Granularity;
  readonly pricePer1kTokens: number;
}

/** Most buckets one answer may hold. */
export const MAX_BUCKETS = 10_000;

/** Records finished runs and answers usage queries. */
export interface UsageLedger {
  record(account: string, flowId: string, createdAtMs: number, ok: boolean, tokens: number, durationMs: number): void;
  query(q: UsageQuery): Record<string, unknown>;
}

const HOUR = 3_600_000;
const DAY = 86_400_000;

/** Start of the bucket holding `ms` (UTC; weeks start on Monday). */
export function bucketStart(ms: number, g: Granularity): number {
  if (g === 'hour') return Math.floor(ms / HOUR) * HOUR;
  const day = Math.floor(ms / DAY) * DAY;
  if (g === 'day') return day;
  const d = new Date(day);
  if (g === 'week') return day - ((d.getUTCDay() + 6) % 7) * DAY;
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
}

/** Start of the bucket after the one starting at `start`. */
export function nextBucket(start: number, g: Granularity): number {
  if (g === 'hour') return start + HOUR;
  if (g === 'day') return start + DAY;
  if (g === 'week') return start + 7 * DAY;
  const d = new Date(start);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
}

/** Number of buckets a range spans. */
export function countBuckets(startMs: number, endMs: number, g: Granularity): number {
  let n = 0;
  for (let b = bucketStart(startMs, g); b < endMs && n <= MAX_BUCKETS; b = nextBucket(b, g)) n++;
  return n;
}

/** The `date` of a bucket: `YYYY-MM-DD` of its first day, or `YYYY-MM-DDTHH:00:00Z` for hours. */
export function bucketLabel(start: number, g: Granularity): string {
  const iso = new Date(start).toISOString();
  return g === 'hour' ? `${iso.slice(0, 13)}:00:00Z` : iso.slice(0, 10);
}

function money(tokens: number, price: number): number {
  return Math.round((tokens / 1000) * price * 1e6) / 1e6;
}

/**
 * Columns of finished runs, growing by doubling: about 25 bytes a run, so an hour at
 * 1000 runs/s stays under 100 MB. Accounts and flows are interned to small integers.
 */
class Columns {
  size = 0;
  at = new Float64Array(1024);
  duration = new Float64Array(1024);
  tokens = new Uint32Array(1024);
  account = new Uint32Array(1024);
  flow = new Uint32Array(1024);
  ok = new Uint8Array(1024);

  push(at: number, duration: number, tokens: number, account: number, flow: number, ok: boolean): void {
    if (this.size === this.at.length) this.grow();
    const i = this.size++;
    this.at[i] = at;
    this.duration[i] = duration;
    this.tokens[i] = tokens;
    this.account[i] = account;
    this.flow[i] = flow;
    this.ok[i] = ok ? 1 : 0;
  }

  private grow(): void {
    const n = this.at.length * 2;
    const copy = <T extends Float64Array | Uint32Array | Uint8Array>(a: T, make: (n: number) => T): T => {
      const b = make(n);
      b.set(a);
      return b;
    };
    this.at = copy(this.at, (k) => new Float64Array(k));
    this.duration = copy(this.duration, (k) => new Float64Array(k));
    this.tokens = copy(this.tokens, (k) => new Uint32Array(k));
    this.account = copy(this.account, (k) => new Uint32Array(k));
    this.flow = copy(this.flow, (k) => new Uint32Array(k));
    this.ok = copy(this.ok, (k) => new Uint8Array(k));
  }
}

/** Creates an empty ledger. */
export function createUsageLedger(): UsageLedger {
  const cols = new Columns();
  const names = new Map<string, number>();
  const intern = (s: string): number => {
    let i = names.get(s);
    if (i === undefined) names.set(s, (i = names.size));
    return i;
  };
  return {
    record(account, flowId, createdAtMs, ok, tokens, durationMs) {
      cols.push(createdAtMs, durationMs, tokens, intern(account), intern(flowId), ok);
    },
    query(q) {
      const starts: number[] = [];
      for (let b = bucketStart(q.startMs, q.granularity); b < q.endMs; b = nextBucket(b, q.granularity)) starts.push(b);
      const runs = new Array<number>(starts.length).fill(0);
      const tokens = new Array<number>(starts.length).fill(0);
      let ok = 0;
      let failed = 0;
      let totalTokens = 0;
      let totalMs = 0;
      const account = names.get(q.account) ?? -1;
      const flow = q.flowId === undefined ? -1 : (names.get(q.flowId) ?? -2);
      for (let r = 0; r < cols.size; r++) {
        const at = cols.at[r] as number;
        if (cols.account[r] !== account || at < q.startMs || at >= q.endMs) continue;
        if (flow !== -1 && cols.flow[r] !== flow) continue;
        if (cols.ok[r] === 1) ok++;
        else failed++;
        const t = cols.tokens[r] as number;
        totalTokens += t;
        totalMs += cols.duration[r] as number;
        const i = findBucket(starts, at);
        runs[i] = (runs[i] as number) + 1;
        tokens[i] = (tokens[i] as number) + t;
      }
      const total = ok + failed;
      return {
        period: { start: new Date(q.startMs).toISOString(), end: new Date(q.endMs).toISOString() },
        metrics: {
          total_runs: total,
          successful_runs: ok,
          failed_runs: failed,
          total_tokens: totalTokens,
          avg_response_time: total === 0 ? 0 : Math.round((totalMs / total) * 100) / 100,
          cost: money(totalTokens, q.pricePer1kTokens),
        },
        daily_breakdown: starts.map((s, i) => ({
          date: bucketLabel(s, q.granularity),
          runs: runs[i] as number,
          tokens: tokens[i] as number,
          cost: money(tokens[i] as number, q.pricePer1kTokens),
        })),
      };
    },
  };
}

function findBucket(starts: readonly number[], ms: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if ((starts[mid] as number) <= ms) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}
