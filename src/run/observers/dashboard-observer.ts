/**
 * The live dashboard's feed: once a second, what the last second looked like (requests,
 * latency and TTFT percentiles, 429s, availability against the objective) and the run so far.
 *
 * What a second looked like is a window of mergeable state (counts, and two small histograms
 * reset every tick), so nothing grows with the run, and a run split over worker threads feeds
 * one dashboard: each worker sends its windows (`createDashboardWindowObserver`), the main
 * thread merges them and publishes on the merged progress (`createDashboardRelay`). One thread
 * does both in one observer (`createDashboardObserver`).
 */
import { createLatencyHistogram, decodeHistogram, encodeHistogram, mergeInto, recordNs, toPct, type LatencyHistogram } from '../../collect/index.js';
import type { Report } from '../../report/index.js';
import type { RunObserver, RunSample } from '../observer.js';
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
    }
  | { readonly type: 'end'; readonly verdict: string; readonly availability: number | null; readonly requests: number };

/** What one thread saw since its last tick. Plain data: counts add, histograms merge. */
export interface DashboardWindow {
  readonly requests: number;
  readonly r429: number;
  readonly good: number;
  readonly bad: number;
  /** Latency (intended start to end) and TTFT, HdrHistogram-encoded; undefined when empty. */
  readonly latency: string | undefined;
  readonly ttft: string | undefined;
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

  add(s: RunSample): void {
    this.requests++;
    recordNs(this.latency, s.endNs - s.intendedNs);
    if (s.stream?.firstTokenNs !== undefined) recordNs(this.ttft, s.stream.firstTokenNs - s.intendedNs);
    if (s.status === 429) this.r429++;
    if (s.verdict.sli === 'good') this.good++;
    else if (s.verdict.sli === 'bad') this.bad++;
  }

  merge(w: DashboardWindow): void {
    this.requests += w.requests;
    this.r429 += w.r429;
    this.good += w.good;
    this.bad += w.bad;
    mergeEncoded(this.latency, w.latency);
    mergeEncoded(this.ttft, w.ttft);
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
    };
    this.reset();
    return w;
  }

  reset(): void {
    this.latency.reset();
    this.ttft.reset();
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

/** The feed itself: publishes start, one tick per progress (from the window's state), and end. */
class Feed {
  private lastT = 0;
  readonly window = new WindowState();

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
    });
    w.reset();
  }

  end(report: Report): void {
    const all = report.slo.good + report.slo.bad + report.slo.excluded;
    this.o.publish({ type: 'end', verdict: report.verdict ?? (report.passed ? 'PASS' : 'FAIL'), availability: report.slo.availability, requests: all });
  }
}

/** The dashboard observer of a run in one thread. */
export function createDashboardObserver(o: DashboardFeedOptions): RunObserver {
  const feed = new Feed(o);
  return {
    name: 'dashboard',
    start: (ctx) => feed.start(ctx.scenarios),
    sample: (s) => feed.window.add(s),
    tick: (p) => feed.tick(p),
    end: (report) => feed.end(report),
  };
}

/** A worker thread's half: hands its window to `send` on every tick. */
export function createDashboardWindowObserver(send: (w: DashboardWindow) => void): RunObserver {
  const window = new WindowState();
  return { name: 'dashboard-window', sample: (s) => window.add(s), tick: () => send(window.take()) };
}

/** The main thread's half of a run over workers: merges their windows, publishes on the merged progress. */
export interface DashboardRelay {
  start(scenarios: readonly string[]): void;
  add(w: DashboardWindow): void;
  tick(p: RunProgress): void;
  end(report: Report): void;
}

/** The relay of `createDashboardWindowObserver`'s windows to one feed. */
export function createDashboardRelay(o: DashboardFeedOptions): DashboardRelay {
  const feed = new Feed(o);
  return { start: (s) => feed.start(s), add: (w) => feed.window.merge(w), tick: (p) => feed.tick(p), end: (r) => feed.end(r) };
}
