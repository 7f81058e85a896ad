/**
 * The verdicts of an analyser's 429s as the report settles them (`settleEvidence` on its
 * evidence), by send time, and its snapshot with the settled counts and findings.
 */
import type { RateLimitSnapshot } from '../../src/collect/rate-limit-analyser.js';
import { verdictOf } from '../../src/collect/rate-limit-evidence.js';
import { decodeEvidence } from '../../src/collect/rate-limit-evidence-codec.js';
import { applySettled, settleEvidence } from '../../src/collect/rate-limit-settle.js';
import type { ThrottleClass } from '../../src/core/types.js';

/** Settled verdicts keyed by send time (µs from the analyser's run start, rounded), and the settled snapshot. */
export function settled(snap: RateLimitSnapshot, startWallMs = 0): { readonly bySend: ReadonlyMap<number, ThrottleClass>; readonly snap: RateLimitSnapshot } {
  const e = snap.evidence;
  if (e === undefined) return { bySend: new Map(), snap };
  const s = settleEvidence(e, startWallMs);
  if (typeof s === 'string') throw new Error(s);
  const ev = s.evidence ?? e;
  const { columns } = decodeEvidence(ev);
  const bySend = new Map<number, ThrottleClass>();
  for (let i = 0; i < columns.n; i++) {
    const j = columns.judgedAt[i] as number;
    if (j >= 0) bySend.set(Math.round(columns.send[i] as number), verdictOf(ev.judged.verdict[j] as number));
  }
  return { bySend, snap: { ...applySettled(snap, s.changes, s), evidence: ev } };
}
