/**
 * The verdict a person reads first, in one place for the console, report.md, report.html and
 * report.json: a run the user interrupted, one an abort-on-fail threshold ended, or a merge that
 * lacks a shard is never a pass, whatever its thresholds said.
 */
/** The verdict a person reads first: `PARTIAL`, `INTERRUPTED` and `ABORTED` are never a pass. */
export type RunVerdict = 'PASS' | 'FAIL' | 'INTERRUPTED' | 'ABORTED' | 'PARTIAL';

/** What the verdict is decided from. */
export interface VerdictInput {
  readonly interrupted: boolean;
  readonly abortedBy?: string | undefined;
  readonly passed: boolean;
  /** A merge of a distributed run's shards that lacks some of them (the run's `shards.missing` is not empty). */
  readonly partial?: boolean | undefined;
}

/** `PARTIAL`, `INTERRUPTED`, `ABORTED`, `FAIL` or `PASS`, in that order of precedence. */
export function reportVerdict(r: VerdictInput): RunVerdict {
  if (r.partial === true) return 'PARTIAL';
  if (r.interrupted) return 'INTERRUPTED';
  if (r.abortedBy !== undefined) return 'ABORTED';
  return r.passed ? 'PASS' : 'FAIL';
}

/** What the headline needs besides the verdict. */
export interface HeadlineInput extends VerdictInput {
  readonly durationS: number;
  readonly thresholds: readonly { readonly metric: string; readonly op: string; readonly value: number; readonly passed?: boolean }[];
  readonly totals: {
    readonly requests: number;
    readonly responses429: number;
    /** 429s without any X-RateLimit-* header. */
    readonly headerless429?: number;
    /** 429s with evidence that something in front of the service answered them. */
    readonly gateway429?: number;
  };
  /**
   * Requests the grace period cut (unjudged) when a threshold on availability failed because of
   * them (it passed at the range's best end), with the grace period.
   */
  readonly cutFailed?: { readonly cut: number; readonly gracefulStopS?: number | undefined };
  /** Streams opened, and those whose tokens all arrived at once. */
  readonly streams?: { readonly count: number; readonly deliveredAtOnce: number };
  /** A merge of shards: those it holds and those it lacks. */
  readonly shards?: { readonly count: number; readonly present: readonly number[]; readonly missing: readonly number[] } | undefined;
}

/** Share of answers that were 429 above which the run is said to have measured the limiter. */
export const THROTTLED_MAJORITY = 0.5;

/**
 * The verdict word and the sentence beside it, the same in every rendering: an aborted run names
 * the threshold that stopped it and when; an interrupted one says its thresholds are as they
 * stood; a run whose answers were mostly 429s says it measured the limiter, not the service,
 * 429s without the service's rate-limit headers are said to be someone else's, and streams whose
 * tokens all came at once are said not to have been streamed.
 */
export function verdictHeadline(r: HeadlineInput, fmtValue: (metric: string, v: number) => string): { readonly word: RunVerdict; readonly notes: readonly string[] } {
  const word = reportVerdict({ ...r, partial: (r.shards?.missing.length ?? 0) > 0 });
  const notes: string[] = [];
  const after = `${r.durationS < 10 ? r.durationS.toFixed(1) : Math.round(r.durationS)} s`;
  if (word === 'PARTIAL' && r.shards !== undefined) {
    const { count, present, missing } = r.shards;
    const passed = r.thresholds.length > 0 && r.thresholds.every((t) => t.passed === true) ? '; its thresholds passed on what is there, which is no pass for the run' : '';
    notes.push(
      `PARTIAL: missing shard${missing.length === 1 ? '' : 's'} ${missing.map((i) => `${i}/${count}`).join(', ')} (${present.length} of ${count} merged): ` +
        `these figures are of part of the run's load${passed}`,
    );
  }
  if (word === 'ABORTED') {
    const t = r.thresholds.find((x) => x.metric === r.abortedBy);
    const rule = t === undefined ? String(r.abortedBy) : `${t.metric} ${t.op} ${fmtValue(t.metric, t.value)}`;
    notes.push(`ABORTED by ${rule} (abortOnFail) after ${after}`);
  }
  if (word === 'INTERRUPTED') notes.push(`interrupted after ${after}: this report covers only the part that ran, and the thresholds are shown as they stood`);
  const { requests, responses429 } = r.totals;
  if (requests > 0 && responses429 / requests > THROTTLED_MAJORITY) {
    notes.push(`${(Math.round((responses429 / requests) * 1000) / 10).toFixed(1)} % of requests were rate-limited: the run measured the limiter, not the service`);
  }
  // A 429 with evidence of another answerer (no headers where the service's admissions carry
  // them, another Server or Via, a body that is not the service's) is someone else's, and the
  // premature count would otherwise blame the service for a gateway's limit. Missing headers
  // alone are no such evidence: a service may send none.
  const gateway = r.totals.gateway429 ?? 0;
  if (gateway > 0) {
    const which = gateway < responses429 ? `${gateway} of the ${responses429} 429s` : gateway === 1 ? 'the 429' : `all ${gateway} 429s`;
    const bare = (r.totals.headerless429 ?? 0) >= gateway;
    notes.push(
      bare
        ? `${which} carried no X-RateLimit headers where the service's answers carry them: something in front of the service (a gateway's limit, a proxy) refused ${gateway === 1 ? 'it' : 'them'}, not the service's own limiter`
        : `${which} came from something in front of the service (another Server or Via, or a body that is not the service's): a gateway's limit or a proxy refused ${gateway === 1 ? 'it' : 'them'}, not the service's own limiter`,
    );
  }
  const cut = r.cutFailed;
  if (cut !== undefined) {
    const grace = cut.gracefulStopS === undefined ? 'the grace period' : `the ${cut.gracefulStopS} s grace period`;
    notes.push(
      `${cut.cut} request${cut.cut === 1 ? ' was' : 's were'} still open when ${grace} ended: never judged, so availability is a range, and it fails at its worst end; ` +
        'give them time to finish (a longer gracefulStop) or a deadline inside it (a shorter timeouts.request) so they are judged',
    );
  }
  // Tokens that arrive together make ITL and TPOT near zero: thresholds on them would pass for a
  // service, or a proxy, that does not stream at all.
  const atOnce = r.streams?.deliveredAtOnce ?? 0;
  const streams = r.streams?.count ?? 0;
  if (atOnce > 0 && atOnce * 2 >= streams) {
    notes.push(
      `${atOnce} of ${streams} stream${streams === 1 ? '' : 's'} delivered all ${atOnce === 1 ? 'its' : 'their'} tokens at once: the answer was not streamed to flowgauge (a buffering proxy, or a service that sends it whole), so they are left out of inter-token latency, TPOT and tokens per second`,
    );
  }
  return { word, notes };
}
