/**
 * A history record as the metrics see it. The live runner and the fold of the history
 * (`totals.ts`) both go through this one conversion, so a count read back from the history is
 * the count the running probe would have made.
 */
import type { ProbeResult } from '../export/index.js';
import { recordTimeMs, type ProbeRecord } from './record.js';

const s = (ms: number | null | undefined): number | undefined => (ms === null || ms === undefined ? undefined : ms / 1000);

/** The metrics' view of `r`; `checkS` (the whole check) when known better than the record's. */
export function probeResultOf(r: ProbeRecord, timeMs = recordTimeMs(r), checkS = s(r.checkMs)): ProbeResult {
  const p = r.phasesMs;
  const certMs = r.tls?.certValidTo == null ? Number.NaN : Date.parse(r.tls.certValidTo);
  return {
    success: r.success,
    durationS: checkS,
    phases: { dns: s(p.dns), connect: s(p.connect), tls: s(p.tls), ttfb: s(p.ttfb), total: p.total / 1000 },
    ...(r.ttftMs !== null ? { ttftS: r.ttftMs / 1000 } : {}),
    ...(r.tls?.version != null ? { tlsVersion: r.tls.version } : {}),
    // The record's time is the start: it finished a check's duration later. In whole ms: the
    // live check's duration and the record's (kept to the µs) agree there, so a gauge pushed from
    // the history equals the one the running probe set.
    finishedAtS: Math.round(timeMs + (checkS ?? p.total / 1000) * 1000) / 1000,
    ...(Number.isFinite(certMs) ? { certExpiryS: certMs / 1000 } : {}),
  };
}
