/**
 * Request phases of one operation, as k6 names them: `blocked` (queued for a connection),
 * `connect` (TCP, on a new connection), `tls` (handshake, on a new https connection), `wait`
 * (request sent to response head, the server's think time plus the network), `receive` (head to
 * last byte: a stream's whole body). Only requests that reached a connection have phases; their
 * count is each summary's `count`. Where the latency percentiles say "slow", the phases say
 * where: a long `blocked` means the client's pool was the limit, not the target.
 */
import type { RequestSample } from '../core/types.js';
import { createLatencyHistogram, encodeHistogram, recordNs, toPct, type LatencyHistogram, type Pct } from './histogram.js';

/** The phases, in the order a request goes through them. */
export const PHASES = ['blocked', 'connect', 'tls', 'wait', 'receive'] as const;
/** One phase. */
export type PhaseName = (typeof PHASES)[number];

/** report.json `ops.<op>.phases`: one summary per phase, in milliseconds. */
export type PhasesSnapshot = { readonly [K in PhaseName as `${K}Ms`]: Pct };

/** Accumulator of one operation's phases. */
export interface PhaseStats {
  /** Records the phases of a request that reached a connection; ignores one that did not. */
  observe(sample: RequestSample): void;
  /** The summaries; undefined while no request reached a connection. */
  snapshot(): PhasesSnapshot | undefined;
  /** Serialised histograms keyed `<prefix>.phase.<name>`, for exact merging. */
  histograms(prefix: string): Record<string, string>;
}

/**
 * Writes the phase durations of `s` in ns into `out` (PHASES' order); false, writing nothing,
 * when it never reached a connection. Fills a caller's buffer: it runs once per request.
 */
export function phaseDurationsNs(s: RequestSample, out: Float64Array): boolean {
  const sent = s.sentNs;
  if (sent === undefined) return false;
  const connect = s.connectNs ?? 0;
  const tls = s.tlsNs ?? 0;
  const head = s.headersNs;
  // A connection opened for an earlier request can come free for this one mid-setup: clamp.
  out[0] = Math.max(0, sent - s.startNs - connect - tls);
  out[1] = connect;
  out[2] = tls;
  // A failure after sending and before any head waited all the way to it.
  out[3] = Math.max(0, (head ?? s.endNs) - sent);
  out[4] = head === undefined ? 0 : Math.max(0, s.endNs - head);
  return true;
}

/** Creates the phase accumulator of one operation (its histograms made on first use). */
export function createPhaseStats(): PhaseStats {
  let h: LatencyHistogram[] | undefined;
  const scratch = new Float64Array(PHASES.length);
  // Values under 0.5 µs (connect and TLS on every reused connection) are counted here and added to
  // the histograms when read: a recording costs ~80 ns, and most requests have two such phases.
  const zeros = new Float64Array(PHASES.length);
  const flush = (hs: LatencyHistogram[]): LatencyHistogram[] => {
    for (let i = 0; i < hs.length; i++) {
      const n = zeros[i] as number;
      if (n > 0) (hs[i] as LatencyHistogram).recordValueWithCount(0, n);
      zeros[i] = 0;
    }
    return hs;
  };
  return {
    observe(s) {
      if (!phaseDurationsNs(s, scratch)) return;
      h ??= PHASES.map(() => createLatencyHistogram());
      for (let i = 0; i < h.length; i++) {
        const ns = scratch[i] as number;
        if (ns < 500) zeros[i] = (zeros[i] as number) + 1;
        else recordNs(h[i] as LatencyHistogram, ns);
      }
    },
    snapshot() {
      if (h === undefined) return undefined;
      flush(h);
      const [blocked, connect, tls, wait, receive] = h.map(toPct) as [Pct, Pct, Pct, Pct, Pct];
      return { blockedMs: blocked, connectMs: connect, tlsMs: tls, waitMs: wait, receiveMs: receive };
    },
    histograms(prefix) {
      const out: Record<string, string> = {};
      if (h !== undefined) flush(h);
      if (h !== undefined) PHASES.forEach((p, i) => (out[`${prefix}.phase.${p}`] = encodeHistogram(h?.[i] as LatencyHistogram)));
      return out;
    },
  };
}
