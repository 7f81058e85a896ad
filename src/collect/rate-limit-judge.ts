/**
 * The verdict on every 429 of a token, settled on all of its evidence at once (the run's end, or
 * the union of several processes' evidence): what the limiter turned out to be applies to all of
 * its answers, and the same evidence never gets two verdicts. docs/measuring.md, "Which 429s are
 * premature", says the rules in words; here they are over intervals: each request was counted by
 * the service somewhere between its send (s) and its answer (a). Under every reading the evidence
 * allows (in-flight order, attempts or admissions counted, the rounding of Reset and Retry-After,
 * where a window of unknown placement lies), a 429 is
 *
 * - **premature** when the client was under the contract: fewer than the limit may have been
 *   counted in its window (by Reset for fixed windows; any window of the limiter's length ending
 *   at it otherwise, the scenario's tier when no header says), or the newest Remaining seen before
 *   it was sent exceeds what may have been counted since, or it was sent after a reset the service
 *   promised (Reset, Retry-After) with fewer than that promise allows counted since (a finding:
 *   `reset-not-honoured`);
 * - **expected** when the client was over it: the limit surely counted in its window (for a
 *   window of unknown placement, since the last time the limiter let requests through again, or
 *   the start Retry-After places), or the Remaining seen before it used up by requests surely
 *   counted since, unless that Remaining said 0 while far fewer than the limit could have been
 *   counted (a finding, `remaining-below-count`, whatever the limiter's shape);
 * - **uncertain** otherwise.
 *
 * With part of the token's traffic unseen (one process of several, `share` > 1), evidence of
 * early throttling must hold with the others sending at the same rate; evidence that it was
 * expected needs the requests seen alone.
 */
import { membership } from './rate-limit-membership.js';
import { atMost, below, sortedOf } from './sorted-times.js';
import { aheadUs, promiseOf, Promises } from './rate-limit-promises.js';
import { createWindowBook } from './rate-limit-windows.js';
import type { EvidenceColumns } from './rate-limit-evidence.js';

/** Options of `judgeEvidence`. */
export interface JudgeOptions {
  /** Wall-clock ms of time 0 of the evidence (places epoch Reset values). */
  readonly startWallMs: number;
  /** The scenario's tier: the contract when no header states one. */
  readonly contract?: { readonly limit: number; readonly windowMs: number } | undefined;
  /** The token's processes ÷ those whose evidence this is (1: all of it). */
  readonly share?: number;
  /** Sends before this (µs) may be missing (dropped to bound memory): counts reaching before it are unknown. */
  readonly horizonUs?: number;
}

/** Header findings the judgement makes. */
export type EvidenceFinding = 'remaining-below-count' | 'remaining-above-count' | 'reset-not-honoured';

/** The settled verdicts. */
export interface Judgement {
  /** Per judged 429 (its index in the evidence): 1 expected, 2 premature, 3 uncertain. */
  readonly verdicts: Uint8Array;
  readonly findings: Partial<Record<EvidenceFinding, number>>;
  /** The limiter's windows overlap (sliding log, token bucket). */
  readonly rolling: boolean;
}

const S = 1e6;


/** Judges every 429 of `c` whose `judgedAt` is set; `judged` is how many there are. */
export function judgeEvidence(c: EvidenceColumns, judged: number, o: JudgeOptions): Judgement {
  const share = Math.max(1, o.share ?? 1);
  const horizon = o.horizonUs ?? Number.NEGATIVE_INFINITY;
  const n = c.n;
  const verdicts = new Uint8Array(judged);
  const findings: Partial<Record<EvidenceFinding, number>> = {};
  const find = (k: EvidenceFinding): void => {
    findings[k] = (findings[k] ?? 0) + 1;
  };
  const accepted = (i: number): boolean => (c.status[i] as number) !== 429 && (c.status[i] as number) !== 0 && Number.isFinite(c.answer[i] as number);

  // The advertised limit: the most common Limit.
  const limits = new Map<number, number>();
  let anyReset = false;
  let anyRemaining = false;
  for (let i = 0; i < n; i++) {
    const l = c.limit[i] as number;
    if (!Number.isNaN(l)) limits.set(l, (limits.get(l) ?? 0) + 1);
    if (!Number.isNaN(c.reset[i] as number)) anyReset = true;
    if (!Number.isNaN(c.remaining[i] as number)) anyRemaining = true;
  }
  let advertised: number | undefined;
  let best = 0;
  for (const [v, k] of limits) {
    if (k > best) {
      advertised = v;
      best = k;
    }
  }

  // The service's windows, as the answers reveal them (replayed by answer time).
  const byAnswer = Int32Array.from({ length: n }, (_, i) => i).sort((a, b) => (c.answer[a] as number) - (c.answer[b] as number) || a - b);
  const book = createWindowBook({ runStartNs: 0, runStartWallMs: o.startWallMs, maxWindows: Math.max(1, n), advertised: () => advertised, onDrop: () => undefined });
  const win = new Int32Array(n).fill(-1);
  const winLimit: (number | undefined)[] = [];
  let longestResetUs = 0;
  for (const i of byAnswer) {
    const a = c.answer[i] as number;
    if (!Number.isFinite(a)) continue;
    const reset = c.reset[i] as number;
    const rem = c.remaining[i] as number;
    const lim = c.limit[i] as number;
    const ok = accepted(i);
    const w = book.windowOf(Number.isNaN(reset) ? undefined : String(reset), Number.isNaN(reset) ? undefined : reset, Number.isNaN(rem) ? undefined : rem, a * 1000, ok, (c.send[i] as number) * 1000);
    if (!Number.isNaN(lim) && w.limit === undefined) w.limit = lim;
    if (ok && !Number.isNaN(rem) && (w.minAccRemaining === undefined || rem < w.minAccRemaining)) w.minAccRemaining = rem;
    win[i] = w.seq;
    winLimit[w.seq] = w.limit;
    if (!Number.isNaN(reset)) longestResetUs = Math.max(longestResetUs, aheadUs(reset, a, o.startWallMs));
  }
  const rolling = book.rolling;
  const shape: 'fixed' | 'rolling' | 'none' = rolling ? 'rolling' : anyReset || anyRemaining ? 'fixed' : 'none';
  // A window's length: at most the longest Reset promised (a quota cannot be whole later than it
  // said), at least a second less (whole seconds, rounded up); else the tier's.
  const contractW = o.contract?.windowMs === undefined ? undefined : o.contract.windowMs * 1000;
  const wHi = anyReset ? longestResetUs : contractW;
  const wLo = anyReset ? Math.max(0, longestResetUs - S) : contractW;

  // Sorted times, globally and per window.
  const sends = c.send;
  const answersAll: number[] = [];
  const accSendsL: number[] = [];
  const accAnswersL: number[] = [];
  const noAnswerL: number[] = [];
  const mayWins = membership(c, win, { startWallMs: o.startWallMs, windowUs: wHi ?? 0, accepted });
  const sure = new Uint8Array(n);
  const members: number[][] = [];
  const mayMembers: number[][] = [];
  for (let i = 0; i < n; i++) {
    const a = c.answer[i] as number;
    if (Number.isFinite(a)) answersAll.push(a);
    else noAnswerL.push(c.send[i] as number);
    if (accepted(i)) {
      accSendsL.push(c.send[i] as number);
      accAnswersL.push(a);
    }
    const may = mayWins(i);
    if (may.length === 1) {
      sure[i] = 1;
      (members[may[0] as number] ??= []).push(i);
    }
    for (const w of may) (mayMembers[w] ??= []).push(i);
  }
  const answers = sortedOf(answersAll);
  const accSends = sortedOf(accSendsL);
  const accAnswers = sortedOf(accAnswersL);
  const noAnswer = sortedOf(noAnswerL);
  // Per window: sends of what may be in it; answers of what surely is.
  const EMPTY = new Float64Array(0);
  const winSends: Float64Array[] = [];
  const winAnswers: Float64Array[] = [];
  const winAccAnswers: Float64Array[] = [];
  mayMembers.forEach((list, w) => {
    winSends[w] = sortedOf(list.map((i) => c.send[i] as number));
  });
  members.forEach((list, w) => {
    winAnswers[w] = sortedOf(list.map((i) => c.answer[i] as number));
    winAccAnswers[w] = sortedOf(list.filter(accepted).map((i) => c.answer[i] as number));
  });

  /** 1 when entry `i` is among those sent before `until` and answered after `from` (so a count of them holds it). */
  const among = (i: number, until: number, from: number): number => ((c.send[i] as number) < until && (c.answer[i] as number) > from ? 1 : 0);
  /** Requests other than `self` that may have been counted in `self`'s fixed window before `until`. */
  const mayInWindow = (self: number, until: number): number => {
    const w = win[self] as number;
    const inWin = below(winSends[w] ?? EMPTY, until) - ((c.send[self] as number) < until ? 1 : 0);
    const lost = wHi === undefined ? noAnswer.length : below(noAnswer, until) - below(noAnswer, (c.send[self] as number) - wHi);
    return inWin + lost;
  };
  /** Requests other than `self` that may have been counted in a window of `wHi` ending at `self`'s count. */
  const mayRolling = (self: number, until: number): number => {
    if (wHi === undefined) return Number.POSITIVE_INFINITY;
    const from = (c.send[self] as number) - wHi;
    if (from < horizon) return Number.POSITIVE_INFINITY;
    return below(sends, until) - atMost(answers, from) - among(self, until, from);
  };

  // Remaining: header findings on each accepted answer that has one.
  const withRemaining: number[] = [];
  for (const i of byAnswer) if (accepted(i) && !Number.isNaN(c.remaining[i] as number)) withRemaining.push(i);
  const discredited = new Uint8Array(n);
  if (shape !== 'none') {
    for (const j of withRemaining) {
      const lim = winLimit[win[j] as number] ?? advertised;
      if (lim === undefined) continue;
      const r = c.remaining[j] as number;
      const a = c.answer[j] as number;
      const most = shape === 'fixed' ? mayInWindow(j, a) : mayRolling(j, a);
      if (Number.isFinite(most) && r < lim - 1 - most * share) {
        find('remaining-below-count');
        discredited[j] = 1;
      } else if (shape === 'fixed' && share === 1) {
        const least = sure[j] === 1 ? below(winAccAnswers[win[j] as number] ?? EMPTY, c.send[j] as number) : 0;
        if (r > lim - 1 - least) find('remaining-above-count');
      }
    }
  }

  // Window openers (no Reset to place windows): the first admission after a refusal.
  const opener = new Int32Array(n).fill(-1);
  const refusalBefore = new Float64Array(n).fill(Number.NEGATIVE_INFINITY);
  {
    let lastOpener = -1;
    let lastRefusalSend = Number.NEGATIVE_INFINITY;
    let openerRefusal = Number.NEGATIVE_INFINITY;
    let pending = false;
    for (let i = 0; i < n; i++) {
      if ((c.status[i] as number) === 429) {
        pending = true;
        lastRefusalSend = c.send[i] as number;
      } else if (accepted(i) && pending) {
        pending = false;
        lastOpener = i;
        openerRefusal = lastRefusalSend;
      }
      opener[i] = lastOpener;
      refusalBefore[i] = openerRefusal;
    }
  }
  // Where Retry-After places the window of each run of refusals (after one opener): it ended by
  // the earliest instant any of its refusals promised.
  const promisedEnd = new Map<number, number>();
  for (let i = 0; i < n; i++) {
    const ra = c.retryAfter[i] as number;
    if ((c.status[i] as number) !== 429 || Number.isNaN(ra) || !Number.isFinite(c.answer[i] as number)) continue;
    const key = opener[i] as number;
    const end = (c.answer[i] as number) + (ra + 1) * S;
    promisedEnd.set(key, Math.min(promisedEnd.get(key) ?? Number.POSITIVE_INFINITY, end));
  }

  // The sweep: 429s in send order; answers announce promises as they arrive.
  const quota = new Promises();
  const slot = new Promises();
  let p = 0;
  let rp = 0;
  for (let x = 0; x < n; x++) {
    const jx = c.judgedAt[x] as number;
    if (jx < 0) continue;
    const s = c.send[x] as number;
    const a = c.answer[x] as number;
    while (p < n && (c.answer[byAnswer[p] as number] as number) < s) {
      const e = byAnswer[p] as number;
      const ae = c.answer[e] as number;
      const se = c.send[e] as number;
      const reset = c.reset[e] as number;
      // What is left after this answer, by its own word (a refusal: nothing).
      const left = (c.status[e] as number) === 429 || Number.isNaN(c.remaining[e] as number) ? 0 : (c.remaining[e] as number);
      if (!Number.isNaN(reset)) {
        const [from, pastAfter] = promiseOf(reset, se, ae, o.startWallMs);
        // A fixed window's reset frees its whole quota from the reset on. A rolling limiter's
        // frees the slots of what it had counted by then: one more than it said was left, at
        // least, for what was counted after this answer.
        if (shape === 'fixed') quota.add([pastAfter, from, 0, e]);
        else slot.add([pastAfter, se, left + 1, e]);
      }
      const ra = c.retryAfter[e] as number;
      if (!Number.isNaN(ra)) slot.add([ae + (ra + 1) * S, se, left + 1, e]);
      p++;
    }
    while (rp < withRemaining.length && (c.answer[withRemaining[rp] as number] as number) < s) rp++;
    quota.advance(s);
    slot.advance(s);
    const lim = (win[x] as number) >= 0 ? (winLimit[win[x] as number] ?? advertised ?? o.contract?.limit) : (advertised ?? o.contract?.limit);
    let premature = false;
    let expected = false;

    // The count.
    if (lim !== undefined) {
      if (shape === 'fixed' && (win[x] as number) >= 0 && anyReset) {
        const may = mayInWindow(x, a);
        if ((c.send[x] as number) - (wHi ?? 0) >= horizon && may * share < lim) premature = true;
        else if (below(winAnswers[win[x] as number] ?? EMPTY, s) >= lim) expected = true;
      } else if (shape !== 'fixed' || !anyReset) {
        const may = mayRolling(x, a);
        if (may * share < lim) premature = true;
        else if (shape === 'rolling' && wLo !== undefined && below(answers, s) - below(sends, a - wLo) >= lim) expected = true;
        else if (shape !== 'rolling' && wLo !== undefined) {
          // A window of the tier's length, placed by the last reopening (it began after the
          // refusal before it and by the first admission after) or by Retry-After.
          let start = a;
          const f = opener[x] as number;
          const fOk = f >= 0 && a < (refusalBefore[x] as number) + wLo && (c.answer[f] as number) < s;
          if (fOk) start = Math.min(start, c.answer[f] as number);
          const end = promisedEnd.get(f);
          if (end !== undefined) start = Math.min(start, end - wLo);
          const surely = below(answers, s) - below(sends, start) + (fOk && (c.send[f] as number) < start ? 1 : 0);
          if (surely >= lim) expected = true;
        }
      }
    } else if (!anyRemaining) {
      // Nobody stated a limit the client could be over.
      premature = true;
    }

    // The service's own Remaining.
    const j = rp > 0 ? (withRemaining[rp - 1] as number) : -1;
    if (j >= 0) {
      const sj = c.send[j] as number;
      const between = below(sends, a) - atMost(answers, sj) - among(x, a, sj) - among(j, a, sj);
      const r = c.remaining[j] as number;
      if (r > (between + 1) * share - 1) premature = true;
      else if (discredited[j] === 0 && ((win[j] === win[x] && sure[j] === 1) || shape === 'rolling')) {
        const surely = Math.max(0, below(accAnswers, s) - atMost(accSends, c.answer[j] as number));
        if (r <= surely) expected = true;
      }
    }

    // Promises: sent after a reset the service promised, with less than it frees counted since
    // (a finding whatever else says this 429 came early).
    let broken = false;
    if (lim !== undefined && quota.best !== undefined && quota.best[1] >= horizon) {
      const since = below(sends, a) - atMost(answers, quota.best[1]) - among(x, a, quota.best[1]);
      if ((since + 1) * share - 1 < lim) broken = true;
    }
    if (!broken && slot.best !== undefined) {
      // The promise's own answer is not counted after itself.
      const [, from, , by] = slot.best;
      const since = below(sends, a) - atMost(answers, from) - among(x, a, from) - among(by, a, from);
      if ((since + 1) * share - 1 < slot.best[2]) broken = true;
    }
    if (broken) {
      premature = true;
      // The finding is the refusal past the reset before the limiter let anything through again
      // (one that reopened and then refused early broke its limit, not its reset).
      const from = Math.max(quota.best?.[1] ?? Number.NEGATIVE_INFINITY, slot.best?.[1] ?? Number.NEGATIVE_INFINITY);
      if (below(accSends, a) - atMost(accAnswers, from) <= 0) find('reset-not-honoured');
    }
    verdicts[jx] = premature ? 2 : expected ? 1 : 3;
  }
  return { verdicts, findings, rolling };
}
