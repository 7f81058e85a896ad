/**
 * The rate-limit analyser: measures, rather than assumes, how the service limits. It groups
 * responses into the server's windows, judges every 429 as expected, premature or uncertain
 * (that verdict feeds the SLI), infers what Reset means, counts header problems, and times the
 * recovery after the first rejected window. Pure: times come from the samples, and the number
 * of the scenario's requests in flight from `inFlight`. One analyser judges one token: a run of
 * several tenants gives each its own, and the run's total only adds their verdicts up.
 *
 * Windows are the service's, as the answers reveal them (`rate-limit-windows.ts`); a limiter
 * whose windows overlap rolls (sliding log, token bucket), and only the Remaining evidence below
 * applies to it.
 *
 * The verdict on a 429 as it comes (docs/measuring.md): premature when fewer than the limit
 * may have been counted in its window before it (in-flight requests included), or the newest
 * Remaining seen before it was sent exceeds what may have been counted since; else expected when
 * the limit was surely counted, or that Remaining was surely used up; else uncertain. Without any
 * limit or Remaining it is judged against the scenario's tier (`contract`), or is premature
 * without one: the client cannot have been over a limit nobody stated.
 *
 * That verdict is provisional: it is what the live figures (progress, abort-on-fail) count. Every
 * answer also goes into the token's evidence (`rate-limit-evidence.ts`), bounded, which the
 * report settles once the run is over (`rate-limit-judge.ts`): a limiter's shape learnt late
 * then applies to all of its answers, and workers and shards merge evidence, not verdicts.
 */
import type { RateLimitInfo, RequestSample, ThrottleClass } from '../core/types.js';
import { InvalidArgumentError } from '../core/errors.js';
import { checkHeaders, countViolation, retryAfterSeconds, usable } from './rate-limit-headers.js';
import { createFirst429Tracker } from './rate-limit-first.js';
import { createOriginTracker } from './rate-limit-origin.js';
import type { HeaderViolationCounts } from './rate-limit-headers.js';
import { createResetSemanticsTracker } from './reset-semantics.js';
import { createSortedTimes } from './sorted-times.js';
import { createWindowBook, type RateLimitWin } from './rate-limit-windows.js';
import type { RateLimitSnapshot } from './rate-limit-snapshot.js';
import { createEvidenceLog, EVIDENCE_CAP, EVIDENCE_FLAG, type RateLimitEvidence } from './rate-limit-evidence.js';
import type { ThrottleCounts } from './rate-limit-settle.js';

export type { RateLimitSnapshot, RateLimitWindow } from './rate-limit-snapshot.js';

/** Options of `createRateLimitAnalyser`. */
export interface RateLimitAnalyserOptions {
  /** Monotonic ns of the run's start (positions of the first 429 are relative to it). */
  readonly runStartNs: number;
  /** Wall-clock ms at `runStartNs`: places epoch Reset values on the monotonic clock (recovery time). */
  readonly runStartWallMs?: number;
  /**
   * The token's requests in flight right now, not counting the one being observed. They may have
   * reached the service before a 429 was answered, so they widen what is uncertain. Without it,
   * nothing is taken to be in flight (right for samples replayed after the fact).
   */
  readonly inFlight?: () => number;
  /**
   * Processes sending with the same token, this one included (`--workers`, `--shard`), each with
   * an even share of the schedule (default 1). The others' requests are not seen here, so the
   * evidence that a 429 came early must hold with theirs added at the same rate; evidence that it
   * was expected needs this process's own requests alone.
   */
  readonly sharers?: number;
  /** Windows kept for the report, newest last (default 1000). */
  readonly maxWindows?: number;
  /**
   * The scenario's tier as a contract (requests per window): what a 429 is judged against when
   * the service states no limit (no X-RateLimit-* headers).
   */
  readonly contract?: RateLimitEvidence['contract'];
  /** The tenant (token) this analyser judges, named in its evidence. */
  readonly tenant?: string;
  /** Answers kept as evidence (default `EVIDENCE_CAP`; 0 keeps none). */
  readonly maxEvidence?: number;
}

/** The analyser. */
export interface RateLimitAnalyser {
  /**
   * Records a response and judges a 429. With `judged`, the judgement was made elsewhere (a run
   * of several tenants judges each against its own limit): the sample is only counted, and its
   * headers are left to the tenant's own analyser, so two tokens' headers are never mixed.
   */
  observe(sample: RequestSample, judged?: ThrottleClass, unit?: string): ThrottleClass;
  /**
   * Places an answer the client got outside the measurement (its own setup requests, the
   * follower's polls, a request cut when the grace period ended) in the service's window: the
   * service counted it, so the count evidence must too. Nothing else of it is reported.
   */
  observeSetup(answer: SetupAnswer): void;
  /** What it found; with `evidence` false, without the evidence (a live view: no copy of it each second). */
  snapshot(evidence?: boolean): RateLimitSnapshot;
}

/** What `observeSetup` needs of an answer (status 0: none came). */
export type SetupAnswer = Pick<RequestSample, 'startNs' | 'headersNs' | 'endNs' | 'status' | 'rateLimit'>;



interface Accepted {
  readonly startNs: number;
  readonly answerNs: number;
  readonly remaining: number;
  readonly win: RateLimitWin;
}

/** Distinct Limit values tallied (beyond that, new values are ignored for the mode). */
const MAX_LIMIT_VALUES = 32;
/** Recent accepted answers with a Remaining, searched newest first for the evidence of a 429. */
const ACCEPTED_RING = 1024;

/** Creates an analyser. */
export function createRateLimitAnalyser(options: RateLimitAnalyserOptions): RateLimitAnalyser {
  const maxWindows = options.maxWindows ?? 1000;
  if (!(Number.isInteger(maxWindows) && maxWindows > 0)) throw new InvalidArgumentError('maxWindows must be a positive integer');
  const { runStartNs, runStartWallMs } = options;
  const inFlight = options.inFlight ?? (() => 0);
  const sharers = options.sharers ?? 1;
  if (!(Number.isInteger(sharers) && sharers >= 1)) throw new InvalidArgumentError('sharers must be a positive integer');
  const contract = options.contract;
  if (contract !== undefined && !(contract.limit > 0 && contract.windowMs > 0)) throw new InvalidArgumentError('contract needs a positive limit and windowMs');
  const maxEvidence = options.maxEvidence ?? EVIDENCE_CAP;
  const evidence = maxEvidence > 0 ? createEvidenceLog(maxEvidence) : undefined;
  const us = (ns: number): number => (ns - runStartNs) / 1000;
  const origins = createOriginTracker();
  let gateway429 = 0;
  const byOp = new Map<string, { expected: number; premature: number; uncertain: number }>();

  const violations: HeaderViolationCounts = new Map();
  const limits = new Map<number, number>();
  const semantics = createResetSemanticsTracker();
  let responses = 0;
  let responses429 = 0;
  let expected429 = 0;
  let premature429 = 0;
  let uncertain429 = 0;
  let headerless429 = 0;

  // Every response's send and answer times, and the accepted ones', across windows.
  const sent = createSortedTimes();
  const answered = createSortedTimes();
  const accSent = createSortedTimes();
  const accAnswered = createSortedTimes();
  // Recent accepted answers with a Remaining, in parallel arrays (no object per answer).
  const accStart = new Float64Array(ACCEPTED_RING);
  const accAnswer = new Float64Array(ACCEPTED_RING);
  const accRemaining = new Float64Array(ACCEPTED_RING);
  const accWin: (RateLimitWin | undefined)[] = new Array<RateLimitWin | undefined>(ACCEPTED_RING);
  let accCount = 0;
  const keepAccepted = (startNs: number, answerNs: number, remaining: number, w: RateLimitWin): void => {
    const i = accCount++ % ACCEPTED_RING;
    accStart[i] = startNs;
    accAnswer[i] = answerNs;
    accRemaining[i] = remaining;
    accWin[i] = w;
  };

  const first = createFirst429Tracker();

  // Recovery after the first rejected window.
  let rejectedWin: RateLimitWin | undefined;
  let recoveryObsNs: number | undefined;

  const book = createWindowBook({
    runStartNs,
    ...(runStartWallMs === undefined ? {} : { runStartWallMs }),
    maxWindows,
    advertised: () => advertised(),
    onDrop: (gone) => {
      if (!book.rolling) for (const [k, n] of gone.fixedFindings) violations.set(k, (violations.get(k) ?? 0) + n);
    },
  });
  const windowOf = book.windowOf;

  function advertised(): number | undefined {
    let best: number | undefined;
    let bestCount = 0;
    for (const [value, count] of limits) {
      if (count > bestCount) {
        best = value;
        bestCount = count;
      }
    }
    return best;
  }

  /** The newest accepted answer with a Remaining that arrived before `startNs`. */
  const evidenceBefore = (startNs: number): Accepted | undefined => {
    for (let k = accCount - 1; k >= Math.max(0, accCount - ACCEPTED_RING); k--) {
      const i = k % ACCEPTED_RING;
      if ((accAnswer[i] as number) < startNs) {
        return { startNs: accStart[i] as number, answerNs: accAnswer[i] as number, remaining: accRemaining[i] as number, win: accWin[i] as RateLimitWin };
      }
    }
    return undefined;
  };

  const judge429 = (w: RateLimitWin, startNs: number, answerNs: number): ThrottleClass => {
    const flying = inFlight();
    const limit = w.limit ?? advertised();
    let premature = false;
    let expected = false;
    if (!book.rolling && limit !== undefined && w.detail !== undefined) {
      if ((w.detail.sent.below(answerNs) + flying) * sharers < limit) premature = true;
      else if (w.detail.answered.below(startNs) >= limit) expected = true;
    }
    const j = evidenceBefore(startNs);
    if (j !== undefined) {
      // Every request that may have been counted between j and this one: sent before this
      // answer, answered after j was sent (j itself excluded), and any still in flight.
      const between = sent.below(answerNs) - answered.atMost(j.startNs) - 1 + flying;
      if (j.remaining > (between + 1) * sharers - 1) premature = true;
      else if (j.win === w || book.rolling) {
        // Accepted requests surely counted after j and before this one (a lower bound).
        const surely = Math.max(0, accAnswered.below(startNs) - accSent.atMost(j.answerNs));
        if (j.remaining <= surely) expected = true;
      }
    } else if (limit === undefined) {
      if (contract === undefined) premature = true;
      // The tier: fewer than its limit sent in any window of its length ending here (the answers
      // settle the rest at the end).
      else if ((sent.below(answerNs) - answered.atMost(startNs - contract.windowMs * 1e6) + flying) * sharers < contract.limit) premature = true;
    }
    return premature ? 'premature' : expected ? 'expected' : 'uncertain';
  };

  const trackSendOrder = first.sent;
  const placeFirst429 = first.refused;

  const tally = (verdict: ThrottleClass, op: string): void => {
    let o = byOp.get(op);
    if (o === undefined) byOp.set(op, (o = { expected: 0, premature: 0, uncertain: 0 }));
    if (verdict === 'expected') {
      expected429++;
      o.expected++;
    } else if (verdict === 'uncertain') {
      uncertain429++;
      o.uncertain++;
    } else {
      premature429++;
      o.premature++;
    }
  };

  const record = (startNs: number, arrivalNs: number | undefined, status: number, info: RateLimitInfo | undefined, judged?: { sample: RequestSample; unit: string | undefined; flags: number; verdict: ThrottleClass }): void => {
    evidence?.add(
      {
        sendUs: us(startNs),
        answerUs: arrivalNs === undefined ? undefined : us(arrivalNs),
        status,
        limit: usable(info?.limit),
        remaining: usable(info?.remaining),
        reset: usable(info?.reset),
        retryAfterS: retryAfterSeconds(info),
      },
      judged === undefined
        ? undefined
        : { op: judged.sample.op, unit: judged.unit, lagUs: (judged.sample.startNs - judged.sample.intendedNs) / 1000, flags: judged.flags, verdict: judged.verdict },
    );
  };

  const isHeaderless = (info: RateLimitInfo | undefined): boolean =>
    // `info` exists for a lone Retry-After too, which gateways send with their own 429s.
    info === undefined || (info.raw.limit === undefined && info.raw.remaining === undefined && info.raw.reset === undefined);

  return {
    observe(sample, judged, unit) {
      const { status, startNs } = sample;
      const info = sample.rateLimit;
      if (judged !== undefined) {
        if (status === 0) return judged;
        responses++;
        if (status === 429) {
          responses429++;
          if (isHeaderless(info)) headerless429++;
          if (sample.gateway === true) gateway429++;
          tally(judged, sample.op);
          placeFirst429(startNs);
        }
        trackSendOrder(startNs);
        return judged;
      }
      if (status === 0) {
        // No answer: the service may have counted it, or not.
        record(startNs, undefined, 0, undefined);
        trackSendOrder(startNs);
        return 'none';
      }
      responses++;
      const arrivalNs = sample.headersNs ?? sample.endNs;
      const limit = usable(info?.limit);
      const remaining = usable(info?.remaining);
      const reset = usable(info?.reset);
      if (info !== undefined) checkHeaders(info, status, violations);
      else for (const f of ['limit', 'remaining', 'reset'] as const) countViolation(violations, `missing-${f}`);
      if (limit !== undefined && (limits.has(limit) || limits.size < MAX_LIMIT_VALUES)) {
        limits.set(limit, (limits.get(limit) ?? 0) + 1);
      }
      if (reset !== undefined) semantics.observe(reset, arrivalNs);

      const w = windowOf(info?.raw.reset, reset, remaining, arrivalNs, status !== 429, startNs);
      if (limit !== undefined) {
        if (w.limit === undefined) w.limit = limit;
        else if (w.limit !== limit) w.fixedFindings.set('limit-changed-within-window', (w.fixedFindings.get('limit-changed-within-window') ?? 0) + 1);
      }
      // The service may count Remaining when it answers, not when it admits (a long run answers
      // late, a stream's headers early): only a request sent after an answer arrived must not
      // see more than that answer said.
      if (remaining !== undefined) {
        if (startNs > w.lastAnswerNs && w.lastAnswerRemaining !== undefined && remaining > w.lastAnswerRemaining) {
          w.fixedFindings.set('remaining-increased-within-window', (w.fixedFindings.get('remaining-increased-within-window') ?? 0) + 1);
        }
        if (arrivalNs > w.lastAnswerNs) {
          w.lastAnswerNs = arrivalNs;
          w.lastAnswerRemaining = remaining;
        }
      }

      let verdict: ThrottleClass = 'none';
      if (status === 429) {
        responses429++;
        const headerless = isHeaderless(info);
        if (headerless) headerless429++;
        const gateway = origins.fromGateway(sample, headerless);
        if (gateway) {
          gateway429++;
          (sample as { gateway?: boolean }).gateway = true;
        }
        verdict = judge429(w, startNs, arrivalNs);
        tally(verdict, sample.op);
        w.rejected++;
        if (rejectedWin === undefined) rejectedWin = w;
        placeFirst429(startNs);
        const flags = (headerless ? EVIDENCE_FLAG.headerless : 0) | (gateway ? EVIDENCE_FLAG.gateway : 0) | (sample.outsideSlo === true ? EVIDENCE_FLAG.outsideSlo : 0);
        record(startNs, arrivalNs, status, info, { sample, unit, flags, verdict });
      } else {
        record(startNs, arrivalNs, status, info);
        origins.admitted(sample, isHeaderless(info));
        w.accepted++;
        if (remaining !== undefined && (w.minAccRemaining === undefined || remaining < w.minAccRemaining)) {
          w.minAccRemaining = remaining;
        }
        accSent.insert(startNs);
        accAnswered.insert(arrivalNs);
        w.detail?.accAnswered.insert(arrivalNs);
        if (remaining !== undefined) keepAccepted(startNs, arrivalNs, remaining, w);
        if (rejectedWin !== undefined && w.seq > rejectedWin.seq && (recoveryObsNs === undefined || arrivalNs < recoveryObsNs)) {
          recoveryObsNs = arrivalNs;
        }
      }
      sent.insert(startNs);
      answered.insert(arrivalNs);
      w.detail?.sent.insert(startNs);
      w.detail?.answered.insert(arrivalNs);
      trackSendOrder(startNs);
      return verdict;
    },

    observeSetup(answer) {
      if (answer.status === 0) {
        record(answer.startNs, undefined, 0, undefined);
        return;
      }
      const info = answer.rateLimit;
      const arrivalNs = answer.headersNs ?? answer.endNs;
      record(answer.startNs, arrivalNs, answer.status, info);
      const remaining = usable(info?.remaining);
      const accepted = answer.status !== 429;
      const w = windowOf(info?.raw.reset, usable(info?.reset), remaining, arrivalNs, accepted, answer.startNs);
      const limit = usable(info?.limit);
      if (limit !== undefined && w.limit === undefined) w.limit = limit;
      if (accepted) {
        if (remaining !== undefined && (w.minAccRemaining === undefined || remaining < w.minAccRemaining)) w.minAccRemaining = remaining;
        accSent.insert(answer.startNs);
        accAnswered.insert(arrivalNs);
        w.detail?.accAnswered.insert(arrivalNs);
        if (remaining !== undefined) keepAccepted(answer.startNs, arrivalNs, remaining, w);
      }
      sent.insert(answer.startNs);
      answered.insert(arrivalNs);
      w.detail?.sent.insert(answer.startNs);
      w.detail?.answered.insert(arrivalNs);
    },

    snapshot(withEvidence = true) {
      const resetAtNs = rejectedWin?.resetAtNs;
      const headerViolations: Record<string, number> = Object.fromEntries(violations);
      // Window findings describe a fixed window: a rolling limiter's Remaining rises by design.
      if (!book.rolling) {
        for (const w of book.windows) for (const [k, n] of w.fixedFindings) headerViolations[k] = (headerViolations[k] ?? 0) + n;
      }
      return {
        advertisedLimit: advertised() ?? null,
        resetSemantics: semantics.result(),
        responses,
        responses429,
        expected429,
        premature429,
        uncertain429,
        ...(book.rolling ? { rolling: true } : {}),
        headerless429,
        gateway429,
        byOp: Object.fromEntries([...byOp].map(([op, c]): [string, ThrottleCounts] => [op, { ...c }])),
        headerViolations,
        windows: book.windows.map((w) => ({
          reset: w.resetRaw ?? null,
          accepted: w.accepted,
          rejected: w.rejected,
          limit: w.limit ?? null,
          minRemaining: w.minAccRemaining ?? null,
        })),
        windowsDropped: book.dropped,
        first429: ((f) => (f === undefined ? null : { index: f.index, atMs: (f.startNs - runStartNs) / 1e6 }))(first.first()),
        recoveryMs:
          resetAtNs === undefined || recoveryObsNs === undefined ? null : Math.max(0, recoveryObsNs - resetAtNs) / 1e6,
        ...(evidence === undefined || evidence.size === 0 || !withEvidence
          ? {}
          : { evidence: evidence.toReport({ of: sharers, ...(contract === undefined ? {} : { contract }), ...(options.tenant === undefined ? {} : { tenant: options.tenant }), findings: {} }) }),
      };
    },
  };
}
