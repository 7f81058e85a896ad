/**
 * The live dashboard's feed: once a second, what the last second looked like (requests,
 * latency and TTFT percentiles, 429s, availability against the objective), the run so far, each
 * operation's row, the thresholds judged on the live figures and the checks; at the end the
 * report's own figures, so the page's last state is the report's.
 *
 * What a second looked like is a window of mergeable state (counts, and two small histograms
 * reset every tick), so nothing grows with the run, and a run split over worker threads feeds
 * one dashboard: each worker sends its windows (`createDashboardWindowOutput`), the main
 * thread merges them and publishes on the merged progress (`createDashboardRelay`). One thread
 * does both in one output (`createDashboardOutput`).
 */
import { createLatencyHistogram, decodeHistogram, encodeHistogram, mergeInto, recordNs, toPct, type LatencyHistogram } from '../../collect/index.js';
import { fmtThresholdValue } from '../../report/format.js';
import type { Report } from '../../report/index.js';
import type { ThresholdResult } from '../../slo/index.js';
import type { CheckSample, RunSample } from '../events.js';
import type { RunOutput } from '../output.js';
import type { RunProgress } from '../progress.js';

/** One message of the feed. Plain data, sent as JSON. */
export type DashboardMessage =
  | { readonly type: 'start'; readonly name: string; readonly scenarios: readonly string[]; readonly objective: number }
  | {
      readonly type: 'tick';
      /** Seconds since the run started. */
      readonly t: number;
      readonly totalS: number;
      /** Completed requests per second over the last interval. */
      readonly rps: number;
      readonly p50Ms: number;
      readonly p99Ms: number;
      readonly ttftP50Ms: number | null;
      readonly ttftP99Ms: number | null;
      readonly r429: number;
      /** Availability over the last interval; null when nothing was judged. */
      readonly availability: number | null;
      /** Availability of the run so far. */
      readonly availabilityTotal: number | null;
      readonly inFlight: number;
      readonly started: number;
      readonly dropped: number;
      readonly iterations: { readonly ended: number; readonly failed: number } | null;
      /** Each operation: counts of the run so far, latency of the last interval. */
      readonly ops: readonly DashboardOpRow[];
      /** The thresholds judged on the live figures (absent over worker threads: judged at the end). */
      readonly thresholds?: readonly DashboardThresholdRow[];
      readonly checks: readonly DashboardCheckRow[];
    }
  | {
      readonly type: 'end';
      readonly verdict: string;
      readonly availability: number | null;
      readonly requests: number;
      /** The report's figures: the page's last state is the report's, not the last tick's. */
      readonly durationS: number;
      readonly started: number;
      readonly dropped: number;
      readonly ops: readonly DashboardOpRow[];
      readonly thresholds: readonly DashboardThresholdRow[];
      readonly checks: readonly DashboardCheckRow[];
      readonly iterations: { readonly ended: number; readonly failed: number } | null;
    };

/** One operation's row. Latency percentiles are of the last interval in a tick, of the run at the end. */
export interface DashboardOpRow {
  readonly op: string;
  readonly requests: number;
  readonly bad: number;
  readonly r429: number;
  readonly p50Ms: number | null;
  readonly p99Ms: number | null;
}

/** One threshold, its limit and observation formatted in its metric's unit. */
export interface DashboardThresholdRow {
  readonly key: string;
  readonly limit: string;
  readonly observed: string;
  readonly passed: boolean;
}

/** One check of the run so far. */
export interface DashboardCheckRow {
  readonly name: string;
  readonly passes: number;
  readonly fails: number;
}

/** What one operation did in a window. */
interface OpWindow {
  requests: number;
  bad: number;
  r429: number;
  latency: string | undefined;
}

/** What one thread saw since its last tick. Plain data: counts add, histograms merge. */
export interface DashboardWindow {
  readonly requests: number;
  readonly r429: number;
  readonly good: number;
  readonly bad: number;
  /** Latency (intended start to end) and TTFT, HdrHistogram-encoded; undefined when empty. */
  readonly latency: string | undefined;
  readonly ttft: string | undefined;
  /** By operation (optional: windows of an older worker have none). */
  readonly ops?: Readonly<Record<string, Readonly<OpWindow>>>;
  /** Checks evaluated in the window, by name: [passes, fails]. */
  readonly checks?: Readonly<Record<string, readonly [number, number]>>;
}

/** Where the feed goes: the run's name and objective, and the page(s) it is published to. */
export interface DashboardFeedOptions {
  readonly name: string;
  readonly objective: number;
  publish(m: DashboardMessage): void;
}

/** The state of one window: filled by samples or by other threads' windows, emptied by a tick. */
class WindowState {
  readonly latency = createLatencyHistogram();
  readonly ttft = createLatencyHistogram();
  requests = 0;
  r429 = 0;
  good = 0;
  bad = 0;

  readonly ops = new Map<string, { requests: number; bad: number; r429: number; latency: LatencyHistogram }>();
  readonly checks = new Map<string, [number, number]>();

  private op(name: string): { requests: number; bad: number; r429: number; latency: LatencyHistogram } {
    let o = this.ops.get(name);
    if (o === undefined) this.ops.set(name, (o = { requests: 0, bad: 0, r429: 0, latency: createLatencyHistogram() }));
    return o;
  }

  add(s: RunSample): void {
    this.requests++;
    const o = this.op(s.op);
    o.requests++;
    if (s.status === 429) {
      this.r429++;
      o.r429++;
    } else {
      // As the report's: a 429 is not a latency sample of the service's work.
      recordNs(this.latency, s.endNs - s.intendedNs);
      recordNs(o.latency, s.endNs - s.intendedNs);
    }
    if (s.stream?.firstTokenNs !== undefined) recordNs(this.ttft, s.stream.firstTokenNs - s.intendedNs);
    if (s.verdict.sli === 'good') this.good++;
    else if (s.verdict.sli === 'bad') {
      this.bad++;
      o.bad++;
    }
  }

  check(c: CheckSample): void {
    const n = this.checks.get(c.name) ?? [0, 0];
    n[c.passed ? 0 : 1]++;
    this.checks.set(c.name, n);
  }

  merge(w: DashboardWindow): void {
    this.requests += w.requests;
    this.r429 += w.r429;
    this.good += w.good;
    this.bad += w.bad;
    mergeEncoded(this.latency, w.latency);
    mergeEncoded(this.ttft, w.ttft);
    for (const [name, x] of Object.entries(w.ops ?? {})) {
      const o = this.op(name);
      o.requests += x.requests;
      o.bad += x.bad;
      o.r429 += x.r429;
      mergeEncoded(o.latency, x.latency);
    }
    for (const [name, [passes, fails]] of Object.entries(w.checks ?? {})) {
      const n = this.checks.get(name) ?? [0, 0];
      this.checks.set(name, [n[0] + passes, n[1] + fails]);
    }
  }

  /** The window as plain data, and a fresh one begun. */
  take(): DashboardWindow {
    const w = {
      requests: this.requests,
      r429: this.r429,
      good: this.good,
      bad: this.bad,
      latency: this.latency.totalCount > 0 ? encodeHistogram(this.latency) : undefined,
      ttft: this.ttft.totalCount > 0 ? encodeHistogram(this.ttft) : undefined,
      ops: Object.fromEntries(
        [...this.ops].map(([name, o]) => [name, { requests: o.requests, bad: o.bad, r429: o.r429, latency: o.latency.totalCount > 0 ? encodeHistogram(o.latency) : undefined }]),
      ),
      checks: Object.fromEntries([...this.checks].map(([name, n]) => [name, [n[0], n[1]] as const])),
    };
    this.reset();
    return w;
  }

  reset(): void {
    this.latency.reset();
    this.ttft.reset();
    this.ops.clear();
    this.checks.clear();
    this.requests = 0;
    this.r429 = 0;
    this.good = 0;
    this.bad = 0;
  }
}

/** A window from another thread of this run: a histogram it cannot decode is its bug, and skipped. */
function mergeEncoded(into: LatencyHistogram, encoded: string | undefined): void {
  if (encoded === undefined) return;
  try {
    mergeInto(into, decodeHistogram(encoded));
  } catch {
    // Nothing a target sends reaches here; a broken window only thins one second of the feed.
  }
}

/** A threshold result as a row of the page, formatted in its metric's unit. */
const thresholdRow = (t: ThresholdResult): DashboardThresholdRow => ({
  key: t.metric,
  limit: `${t.op} ${fmtThresholdValue(t.metric, t.value)}`,
  observed: fmtThresholdValue(t.metric, t.observed),
  passed: t.passed,
});

/** The feed itself: publishes start, one tick per progress (from the window's state), and end. */
class Feed {
  private lastT = 0;
  readonly window = new WindowState();
  /** Each operation's counts of the run so far (the window holds one interval's). */
  private readonly opTotals = new Map<string, { requests: number; bad: number; r429: number }>();
  private readonly checkTotals = new Map<string, [number, number]>();

  constructor(private readonly o: DashboardFeedOptions) {}

  start(scenarios: readonly string[]): void {
    this.o.publish({ type: 'start', name: this.o.name, scenarios, objective: this.o.objective });
  }

  tick(p: RunProgress): void {
    const w = this.window;
    const dt = Math.max(1e-3, p.elapsedS - this.lastT);
    this.lastT = p.elapsedS;
    const l = toPct(w.latency);
    const f = toPct(w.ttft);
    const ops: DashboardOpRow[] = [];
    for (const [name, o] of w.ops) {
      const t = this.opTotals.get(name) ?? { requests: 0, bad: 0, r429: 0 };
      this.opTotals.set(name, { requests: t.requests + o.requests, bad: t.bad + o.bad, r429: t.r429 + o.r429 });
    }
    for (const [name, t] of this.opTotals) {
      const p = w.ops.get(name)?.latency;
      const pct = p !== undefined && p.totalCount > 0 ? toPct(p) : undefined;
      ops.push({ op: name, ...t, p50Ms: pct?.p50 ?? null, p99Ms: pct?.p99 ?? null });
    }
    for (const [name, [passes, fails]] of w.checks) {
      const n = this.checkTotals.get(name) ?? [0, 0];
      this.checkTotals.set(name, [n[0] + passes, n[1] + fails]);
    }
    this.o.publish({
      type: 'tick',
      t: Math.round(p.elapsedS * 1000) / 1000,
      totalS: p.totalS,
      rps: w.requests / dt,
      p50Ms: l.p50,
      p99Ms: l.p99,
      ttftP50Ms: f.count > 0 ? f.p50 : null,
      ttftP99Ms: f.count > 0 ? f.p99 : null,
      r429: w.r429 / dt,
      availability: w.good + w.bad > 0 ? w.good / (w.good + w.bad) : null,
      availabilityTotal: p.availability ?? null,
      inFlight: p.inFlight,
      started: p.started,
      dropped: p.dropped,
      iterations: p.iterations ?? null,
      ops,
      ...(p.thresholds !== undefined ? { thresholds: p.thresholds.map(thresholdRow) } : {}),
      checks: [...this.checkTotals].map(([name, [passes, fails]]) => ({ name, passes, fails })),
    });
    w.reset();
  }

  end(report: Report): void {
    const all = report.slo.good + report.slo.bad + report.slo.excluded;
    const it = report.iterations;
    this.o.publish({
      type: 'end',
      verdict: report.verdict ?? (report.passed ? 'PASS' : 'FAIL'),
      availability: report.slo.availability,
      requests: all,
      durationS: report.durationS,
      started: report.load.started,
      dropped: report.load.dropped,
      ops: Object.entries(report.ops).flatMap(([op, o]) =>
        o === undefined ? [] : [{ op, requests: o.count, bad: o.bad, r429: o.statuses['429'] ?? 0, p50Ms: o.latencyMs.count > 0 ? o.latencyMs.p50 : null, p99Ms: o.latencyMs.count > 0 ? o.latencyMs.p99 : null }],
      ),
      thresholds: report.thresholds.map(thresholdRow),
      checks: Object.entries(report.checks ?? {}).map(([name, c]) => ({ name, passes: c.passes, fails: c.fails })),
      iterations: it === undefined ? null : { ended: it.completed + it.failed + it.interrupted, failed: it.failed },
    });
  }
}

/** The dashboard output of a run in one thread. */
export function createDashboardOutput(o: DashboardFeedOptions): RunOutput {
  const feed = new Feed(o);
  return {
    name: 'dashboard',
    liveThresholds: true,
    start: (ctx) => feed.start(ctx.scenarios),
    sample: (s) => feed.window.add(s),
    check: (c) => feed.window.check(c),
    tick: (p) => feed.tick(p),
    end: (report) => feed.end(report),
  };
}

/** A worker thread's half: hands its window to `send` on every tick. */
export function createDashboardWindowOutput(send: (w: DashboardWindow) => void): RunOutput {
  const window = new WindowState();
  return { name: 'dashboard-window', sample: (s) => window.add(s), check: (c) => window.check(c), tick: () => send(window.take()) };
}

/** The main thread's half of a run over workers: merges their windows, publishes on the merged progress. */
export interface DashboardRelay {
  start(scenarios: readonly string[]): void;
  add(w: DashboardWindow): void;
  tick(p: RunProgress): void;
  end(report: Report): void;
}

/** The relay of `createDashboardWindowOutput`'s windows to one feed. */
export function createDashboardRelay(o: DashboardFeedOptions): DashboardRelay {
  const feed = new Feed(o);
  return { start: (s) => feed.start(s), add: (w) => feed.window.merge(w), tick: (p) => feed.tick(p), end: (r) => feed.end(r) };
}
