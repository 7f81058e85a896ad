import { describe, expect, it } from 'vitest';
import { createRateLimitAnalyser } from '../../src/collect/rate-limit-analyser.js';
import type { RateLimitInfo, RequestSample, ThrottleClass } from '../../src/core/types.js';
import { MS, S, rl, sample } from './samples.js';
import { settled } from './settle-helper.js';

const EPOCH0 = 1_767_225_600; // 2026-01-01T00:00:00Z in Unix seconds

interface ServerOptions {
  limit: number;
  windowS: number;
  reset: 'delta' | 'epoch' | 'constant';
  /** Requests actually admitted per window (a buggy server admits fewer than it advertises). */
  admits?: number;
  /** Seconds after the advertised reset during which the server still rejects. */
  lateResetS?: number;
  /** Remaining sent on a 429 (default 0). */
  remainingOn429?: (admittedSoFar: number) => number;
}

/** A fixed-window limiter answering a request that reaches it at `tNs`. */
function fixedWindowServer(o: ServerOptions): (tNs: number) => { status: number; rateLimit: RateLimitInfo } {
  let windowIdx = -1;
  let used = 0;
  return (tNs) => {
    const shifted = tNs - (o.lateResetS ?? 0) * S;
    const w = Math.max(0, Math.floor(shifted / (o.windowS * S)));
    if (w !== windowIdx) {
      windowIdx = w;
      used = 0;
    }
    const advertisedEnd = (Math.floor(tNs / (o.windowS * S)) + 1) * o.windowS;
    const reset =
      o.reset === 'delta' ? Math.ceil(advertisedEnd - tNs / S) : o.reset === 'epoch' ? EPOCH0 + advertisedEnd : o.windowS;
    if (used >= (o.admits ?? o.limit)) {
      return { status: 429, rateLimit: rl(o.limit, o.remainingOn429?.(used) ?? 0, reset) };
    }
    used++;
    return { status: 200, rateLimit: rl(o.limit, Math.max(0, o.limit - used), reset) };
  };
}

/** Requests at a constant rate, each taking 10 ms (headers after 5 ms), answered by `server`. */
function drive(server: ReturnType<typeof fixedWindowServer>, ratePerS: number, durationS: number, latencyMs = 10): RequestSample[] {
  const out: RequestSample[] = [];
  const n = Math.round(ratePerS * durationS);
  for (let i = 0; i < n; i++) {
    const t = Math.round((i * S) / ratePerS);
    const r = server(t);
    out.push(
      sample({
        intendedNs: t,
        startNs: t,
        headersNs: t + 5 * MS,
        endNs: t + latencyMs * MS,
        status: r.status,
        errorCode: r.status === 429 ? 'RATE_LIMITED' : undefined,
        rateLimit: r.rateLimit,
      }),
    );
  }
  return out;
}

/**
 * Feeds samples in the order given (the order they were observed), telling the analyser how many
 * others were in flight: sent before this one ended and not yet observed.
 */
function feed(samples: readonly RequestSample[], options: Partial<Parameters<typeof createRateLimitAnalyser>[0]> = {}) {
  let k = 0;
  const inFlight = (): number => {
    const now = (samples[k] as RequestSample).endNs;
    let n = 0;
    for (let i = k + 1; i < samples.length; i++) if ((samples[i] as RequestSample).startNs < now) n++;
    return n;
  };
  const a = createRateLimitAnalyser({ runStartNs: 0, inFlight, ...options });
  const verdicts: ThrottleClass[] = [];
  for (k = 0; k < samples.length; k++) verdicts.push(a.observe(samples[k] as RequestSample));
  // The figures a report holds: settled on the evidence.
  return { verdicts, snap: settled(a.snapshot(), options.runStartWallMs ?? 0).snap };
}

describe('rate-limit analyser', () => {
  it('under the limit: no 429s, advertised limit and windows found, delta Reset inferred', () => {
    const { verdicts, snap } = feed(drive(fixedWindowServer({ limit: 100, windowS: 60, reset: 'delta' }), 1, 180));
    expect(verdicts.every((v) => v === 'none')).toBe(true);
    expect(snap.advertisedLimit).toBe(100);
    expect(snap.resetSemantics).toBe('delta-seconds');
    expect(snap.responses).toBe(180);
    expect(snap.responses429).toBe(0);
    expect(snap.premature429).toBe(0);
    expect(snap.first429).toBeNull();
    expect(snap.windows.map((w) => [w.accepted, w.rejected])).toEqual([
      [60, 0],
      [60, 0],
      [60, 0],
    ]);
    expect(snap.windows[0]).toMatchObject({ reset: '60', limit: 100, minRemaining: 40 });
    expect(snap.headerViolations).toEqual({});
  });

  it('at 120 % of the limit: every 429 expected, first one is request #101', () => {
    const { verdicts, snap } = feed(drive(fixedWindowServer({ limit: 100, windowS: 60, reset: 'delta' }), 2, 120));
    expect(snap.responses429).toBe(40);
    expect(snap.expected429).toBe(40);
    expect(snap.premature429).toBe(0);
    expect(verdicts.filter((v) => v === 'expected')).toHaveLength(40);
    expect(snap.windows.map((w) => [w.accepted, w.rejected, w.minRemaining])).toEqual([
      [100, 20, 0],
      [100, 20, 0],
    ]);
    expect(snap.first429).toEqual({ index: 101, atMs: 50_000 });
    expect(snap.advertisedLimit).toBe(100);
    // Requests resume in the next window right after its reset (Reset has 1 s resolution).
    expect(snap.recoveryMs).not.toBeNull();
    expect(snap.recoveryMs as number).toBeLessThanOrEqual(1000);
  });

  it('with epoch Reset: windows keyed by the epoch value, recovery timed from the wall clock', () => {
    const server = fixedWindowServer({ limit: 100, windowS: 60, reset: 'epoch' });
    const { snap } = feed(drive(server, 2, 120), { runStartWallMs: EPOCH0 * 1000 });
    expect(snap.resetSemantics).toBe('epoch-seconds');
    expect(snap.windows.map((w) => [w.reset, w.accepted, w.rejected])).toEqual([
      [String(EPOCH0 + 60), 100, 20],
      [String(EPOCH0 + 120), 100, 20],
    ]);
    expect(snap.expected429).toBe(40);
    // First accepted response of window 2: sent at 60 s, headers 5 ms later.
    expect(snap.recoveryMs).toBe(5);
  });

  it('measures a slow recovery when the server keeps rejecting after its advertised reset', () => {
    const server = fixedWindowServer({ limit: 100, windowS: 60, reset: 'epoch', lateResetS: 3 });
    const { snap } = feed(drive(server, 2, 110), { runStartWallMs: EPOCH0 * 1000 });
    // Accepted again at 63 s; the reset was advertised for 60 s.
    expect(snap.recoveryMs).toBe(3005);
  });

  it('flags premature throttling: 429 while under the advertised limit', () => {
    const server = fixedWindowServer({ limit: 100, windowS: 60, reset: 'delta', admits: 50, remainingOn429: (used) => 100 - used });
    const { verdicts, snap } = feed(drive(server, 1, 60));
    expect(snap.responses429).toBe(10);
    expect(snap.premature429).toBe(10);
    expect(snap.expected429).toBe(0);
    expect(verdicts.slice(50)).toEqual(Array(10).fill('premature'));
    expect(snap.headerViolations['remaining-nonzero-on-429']).toBe(10);
    expect(snap.first429).toEqual({ index: 51, atMs: 50_000 });
  });

  it("counts 429s without any X-RateLimit header apart: a gateway's, not the service's", () => {
    const service = fixedWindowServer({ limit: 100, windowS: 60, reset: 'delta', admits: 50 });
    const samples = drive(service, 1, 60).map((s, i) =>
      // Every fifth request is refused by a gateway in front: a bare 429, or one with unrelated headers only.
      i % 5 === 4 && s.status === 200 ? { ...s, status: 429, errorCode: 'RATE_LIMITED' as const, rateLimit: i % 10 === 4 ? undefined : rl(undefined, undefined, undefined) } : s,
    );
    const { snap } = feed(samples);
    // 10 of the first 50 answers became the gateway's; the service's own 10 rejections keep their headers.
    expect(snap.responses429).toBe(20);
    expect(snap.headerless429).toBe(10);
    expect(snap.premature429).toBe(20);
    expect(feed(drive(service, 1, 60)).snap.headerless429).toBe(0);
  });

  it('flags premature throttling even when the 429 claims Remaining 0', () => {
    const server = fixedWindowServer({ limit: 100, windowS: 60, reset: 'delta', admits: 50 });
    const { snap } = feed(drive(server, 1, 60));
    expect(snap.premature429).toBe(10);
    expect(snap.headerViolations['remaining-nonzero-on-429']).toBeUndefined();
  });

  it('calls 429s uncertain, never premature, while the requests that took the last slots are still in flight', () => {
    const samples = drive(fixedWindowServer({ limit: 100, windowS: 60, reset: 'delta' }), 2, 60);
    // The last three admitted requests were long streams: they complete after the 429s.
    for (const s of samples.slice(97, 100)) {
      s.op = 'stream';
      s.endNs += 30 * S;
    }
    samples.sort((a, b) => a.endNs - b.endNs);
    const { snap } = feed(samples);
    expect(snap.responses429).toBe(20);
    expect(snap.premature429).toBe(0);
    expect(snap.expected429 + (snap.uncertain429 ?? 0)).toBe(20);
    expect(snap.first429?.index).toBe(101);
    expect(snap.windows.map((w) => [w.accepted, w.rejected])).toEqual([[100, 20]]);
    // The settled verdicts come from the answers themselves, not from the live count of requests in flight.
    expect(feed(samples, { inFlight: () => 0 }).snap.premature429).toBe(0);
  });

  it('counts missing headers, and judges a 429 without any advertised limit premature', () => {
    const none = rl(undefined, undefined, undefined);
    const samples = [sample({ rateLimit: none }), sample({ startNs: 1, rateLimit: none }), sample({ startNs: 2, status: 429, errorCode: 'RATE_LIMITED', rateLimit: none })];
    const { verdicts, snap } = feed(samples);
    expect(verdicts).toEqual(['none', 'none', 'premature']);
    expect(snap.advertisedLimit).toBeNull();
    expect(snap.resetSemantics).toBe('unknown');
    expect(snap.headerViolations).toEqual({ 'missing-limit': 3, 'missing-remaining': 3, 'missing-reset': 3 });
    expect(snap.windows).toHaveLength(1);
  });

  it('counts non-integer, negative and inconsistent header values', () => {
    const weird: RateLimitInfo = {
      limit: undefined,
      remaining: -1,
      reset: undefined,
      raw: { limit: 'lots', remaining: '-1', reset: '1.5', retryAfter: undefined },
    };
    const samples = [
      sample({ rateLimit: weird }),
      sample({ startNs: 1, rateLimit: rl(10, 11, 30) }),
      sample({ startNs: 2, rateLimit: rl(20, 5, 30) }),
    ];
    const { snap } = feed(samples);
    expect(snap.headerViolations).toEqual({
      'non-integer-limit': 1,
      'negative-remaining': 1,
      'non-integer-reset': 1,
      'remaining-above-limit': 1,
      'limit-changed-within-window': 1,
      // Against the window's limit of 10: 11 left after the first request is more than it allows,
      // 5 left after the third is fewer than three requests can have used.
      'remaining-above-count': 1,
      'remaining-below-count': 1,
    });
  });

  it('counts Remaining going up within a window, by send order', () => {
    const samples = [9, 8, 7, 8, 6].map((rem, i) => sample({ startNs: i * MS, headersNs: i * MS + 1, endNs: i * MS + 2, rateLimit: rl(10, rem, 30) }));
    const { snap } = feed(samples);
    expect(snap.headerViolations['remaining-increased-within-window']).toBe(1);
    // Arriving out of order is not a violation: send order decides.
    const shuffled = [samples[1], samples[0], samples[3], samples[2]] as RequestSample[];
    expect(feed(shuffled.filter((_, i) => i < 2)).snap.headerViolations).toEqual({});
  });

  it('does not call Remaining counted at answer time an increase: a long run answers late, a stream\'s headers early', () => {
    // Limit 10: a run sent at 0 answered at 200 ms says 5 left (counted then); a stream sent at
    // 10 ms had its headers at 11 ms saying 8 (counted then), and is observed at its end.
    const run = sample({ startNs: 0, headersNs: 200 * MS, endNs: 200 * MS, rateLimit: rl(10, 5, 30) });
    const stream = sample({ op: 'stream', startNs: 10 * MS, headersNs: 11 * MS, endNs: 210 * MS, rateLimit: rl(10, 8, 30) });
    expect(feed([run, stream]).snap.headerViolations['remaining-increased-within-window']).toBeUndefined();
    // Sent after the run's answer arrived, 8 left is an increase.
    const later = sample({ startNs: 201 * MS, headersNs: 202 * MS, endNs: 203 * MS, rateLimit: rl(10, 8, 30) });
    expect(feed([run, later]).snap.headerViolations['remaining-increased-within-window']).toBe(1);
  });

  it('infers epoch, delta and unknown Reset semantics', () => {
    const epoch = feed(drive(fixedWindowServer({ limit: 100, windowS: 60, reset: 'epoch' }), 1, 30)).snap;
    expect(epoch.resetSemantics).toBe('epoch-seconds');
    const delta = feed(drive(fixedWindowServer({ limit: 100, windowS: 60, reset: 'delta' }), 1, 30)).snap;
    expect(delta.resetSemantics).toBe('delta-seconds');
    // A constant small value (the window length) does not count down: neither documented form.
    const constant = feed(drive(fixedWindowServer({ limit: 100, windowS: 60, reset: 'constant' }), 1, 30)).snap;
    expect(constant.resetSemantics).toBe('unknown');
    // Epoch milliseconds are neither.
    const ms = feed([sample({ rateLimit: rl(100, 99, EPOCH0 * 1000) })]).snap;
    expect(ms.resetSemantics).toBe('unknown');
  });

  it('uses Remaining jumping back up as the window boundary when Reset is absent', () => {
    const server = fixedWindowServer({ limit: 100, windowS: 60, reset: 'delta' });
    const samples = drive(server, 2, 120).map((s) => {
      const r = s.rateLimit as RateLimitInfo;
      s.rateLimit = rl(r.limit, r.remaining, undefined);
      return s;
    });
    const { snap } = feed(samples);
    expect(snap.windows.map((w) => [w.reset, w.accepted, w.rejected])).toEqual([
      [null, 100, 20],
      [null, 100, 20],
    ]);
    expect(snap.expected429).toBe(40);
    expect(snap.recoveryMs).toBeNull();
  });

  it('keeps at most maxWindows windows', () => {
    const { snap } = feed(drive(fixedWindowServer({ limit: 100, windowS: 10, reset: 'delta' }), 1, 50), { maxWindows: 3 });
    expect(snap.windows).toHaveLength(3);
    expect(snap.windowsDropped).toBe(2);
  });

  it('places the first 429 by send order even when faster requests finished first', () => {
    // Requests 0..4 sent 1 ms apart; #2 is the 429 but finishes last.
    const samples = [0, 1, 2, 3, 4].map((i) =>
      sample({
        startNs: i * MS,
        headersNs: i * MS + 1,
        endNs: i * MS + (i === 2 ? 50 * MS : 2),
        status: i === 2 ? 429 : 200,
        rateLimit: rl(10, 9 - i, 30),
      }),
    );
    samples.sort((a, b) => a.endNs - b.endNs);
    const { snap } = feed(samples);
    expect(snap.first429).toEqual({ index: 3, atMs: 2 });
    expect(snap.premature429).toBe(1);
  });

  it('ignores requests that got no response', () => {
    const { verdicts, snap } = feed([sample({ status: 0, errorCode: 'CONNECTION_REFUSED', rateLimit: undefined, headersNs: undefined })]);
    expect(verdicts).toEqual(['none']);
    expect(snap.responses).toBe(0);
    expect(snap.headerViolations).toEqual({});
  });

  it('rejects nonsense options', () => {
    expect(() => createRateLimitAnalyser({ runStartNs: 0, sharers: 0 })).toThrow(/sharers/);
    expect(() => createRateLimitAnalyser({ runStartNs: 0, maxWindows: 0 })).toThrow(/maxWindows/);
  });
});
