/**
 * The evidence a token's 429s are judged on, kept so that the verdicts can settle on all of it
 * (at the run's end, and again on the union of several processes' evidence when workers or
 * shards merge): per answer its send and answer times, status and rate-limit headers; per 429
 * the analyser judged, its operation, scenario, schedule lag, flags and the verdict it has now.
 *
 * In memory it is columns of typed arrays, appended on the hot path (no object per answer),
 * bounded: past `cap` entries the oldest half is dropped and counted, and their 429s keep the
 * verdicts they had. In report.json (`rateLimit.evidence`) it is columns of integers in µs from
 * the report's start, send times delta-encoded, so 10,000 answers take about 300 KB.
 */
import type { ThrottleClass } from '../core/types.js';

/** Entries kept per token before the oldest half is dropped. */
export const EVIDENCE_CAP = 32_768;

/** Flags of a judged 429. */
export const EVIDENCE_FLAG = {
  /** It carried none of the X-RateLimit-* headers. */
  headerless: 1,
  /** Something in front of the service answered it (foreign body, another Server/Via, headers that vanished). */
  gateway: 2,
  /** It does not count toward availability (`vu.http` outside the SLO): its SLI class does not follow the verdict. */
  outsideSlo: 4,
} as const;

const VERDICT_CODES: readonly ThrottleClass[] = ['none', 'expected', 'premature', 'uncertain'];

/** The code of a verdict in the evidence (0 none, 1 expected, 2 premature, 3 uncertain). */
export const verdictCode = (v: ThrottleClass): number => VERDICT_CODES.indexOf(v);
/** The verdict of a code. */
export const verdictOf = (code: number): ThrottleClass => VERDICT_CODES[code] ?? 'uncertain';

/** A token's evidence as report.json carries it (`rateLimit.evidence`). */
export interface RateLimitEvidence {
  /** Processes that sent with the token (`--workers` × `--shard`), this evidence's among them. */
  readonly of: number;
  /** How many of them this evidence holds (all: `of`; one process's report: 1). */
  readonly covers: number;
  /** The scenario's tier as a contract (its limit per minute), for answers without headers. */
  readonly contract?: { readonly limit: number; readonly windowMs: number };
  /** The tenant (token) the evidence is of: the first scenario of the run that used it. */
  readonly tenant?: string;
  /** Scenarios whose 429s are judged here (`judged.unit` indexes it). */
  readonly units: readonly string[];
  /** Operations (`judged.op` indexes it). */
  readonly ops: readonly string[];
  /** Answers dropped to keep the evidence bounded (the oldest): their 429s keep their verdicts. */
  readonly dropped: number;
  /** With answers dropped: the latest send among them (µs from the report's start); earlier evidence may be missing. */
  readonly horizonUs?: number;
  /** Send times, µs from the report's start, each as the difference from the one before (sorted). */
  readonly sendUs: readonly number[];
  /** Answer (response head) − send, µs; null when no answer came (timeout, connection error, cut). */
  readonly answerUs: readonly (number | null)[];
  readonly status: readonly number[];
  /** X-RateLimit-Limit; null when absent (the column is left out when no answer had one). */
  readonly limit?: readonly (number | null)[];
  readonly remaining?: readonly (number | null)[];
  /** The raw X-RateLimit-Reset, as the difference from the last one present; null when absent. */
  readonly reset?: readonly (number | null)[];
  /** Retry-After in seconds; null when absent (an HTTP-date is left out). */
  readonly retryAfterS?: readonly (number | null)[];
  /** The 429s judged (the scenario's own; setup answers and polls are evidence only). */
  readonly judged: {
    /** Entry index, as the difference from the one before. */
    readonly at: readonly number[];
    readonly op: readonly number[];
    readonly unit: readonly number[];
    /** Send − intended start, µs (places it in its slice). */
    readonly lagUs: readonly number[];
    readonly flags: readonly number[];
    /** 1 expected, 2 premature, 3 uncertain: the verdict the report's counts hold. */
    readonly verdict: readonly number[];
  };
  /** Header findings that come from this evidence (counted in `headerViolations` too). */
  readonly findings: Readonly<Record<string, number>>;
}

/** The evidence decoded: columns in µs from the report's start, sorted by send time. */
export interface EvidenceColumns {
  readonly n: number;
  readonly send: Float64Array;
  /** Infinity when no answer came. */
  readonly answer: Float64Array;
  readonly status: Uint16Array;
  /** NaN when absent. */
  readonly limit: Float64Array;
  readonly remaining: Float64Array;
  readonly reset: Float64Array;
  readonly retryAfter: Float64Array;
  /** Index of the judged 429 at this entry, −1 for others. */
  readonly judgedAt: Int32Array;
}

/** Columns for `n` entries, none judged yet (`judgedAt` −1): filled by the log and by the codec. */
export function allocateEvidenceColumns(n: number): EvidenceColumns {
  return {
    n,
    send: new Float64Array(n),
    answer: new Float64Array(n),
    status: new Uint16Array(n),
    limit: new Float64Array(n),
    remaining: new Float64Array(n),
    reset: new Float64Array(n),
    retryAfter: new Float64Array(n),
    judgedAt: new Int32Array(n).fill(-1),
  };
}

/** One answer (or non-answer) to record. */
export interface EvidenceEntry {
  readonly sendUs: number;
  /** Undefined when no answer came. */
  readonly answerUs: number | undefined;
  readonly status: number;
  readonly limit: number | undefined;
  readonly remaining: number | undefined;
  readonly reset: number | undefined;
  readonly retryAfterS: number | undefined;
}

/** A judged 429's own part. */
export interface JudgedEntry {
  readonly op: string;
  readonly unit: string | undefined;
  readonly lagUs: number;
  readonly flags: number;
  readonly verdict: ThrottleClass;
}

/** The in-memory log of one token. */
export interface EvidenceLog {
  /** Appends an entry; with `judged`, a 429 the analyser judged. Returns its judged index (−1 for others). */
  add(e: EvidenceEntry, judged?: JudgedEntry): number;
  /** Entries kept. */
  readonly size: number;
  /** The columns (sorted by send) and the judged 429s' verdicts, for the judge. */
  columns(): { readonly columns: EvidenceColumns; readonly verdicts: Uint8Array };
  /** report.json's form. */
  toReport(o: { readonly of: number; readonly contract?: RateLimitEvidence['contract']; readonly tenant?: string; readonly findings: Readonly<Record<string, number>>; readonly verdicts?: Uint8Array }): RateLimitEvidence;
}

const nanOf = (v: number | undefined): number => (v === undefined ? Number.NaN : v);

/** The header columns that hold a value (a column of nulls only is left out). */
export function columnsPresent<K extends string>(cols: Record<K, (number | null)[]>): Partial<Record<K, (number | null)[]>> {
  return Object.fromEntries(Object.entries<(number | null)[]>(cols).filter(([, col]) => col.some((v) => v !== null))) as Partial<Record<K, (number | null)[]>>;
}
/** NaN (absent) as report.json writes it: null. */
export const nullOf = (v: number): number | null => (Number.isNaN(v) ? null : v);

/** Creates an empty log keeping at most `cap` entries. */
export function createEvidenceLog(cap = EVIDENCE_CAP): EvidenceLog {
  let size = 64;
  let send = new Float64Array(size);
  let answer = new Float64Array(size);
  let status = new Uint16Array(size);
  let limit = new Float64Array(size);
  let remaining = new Float64Array(size);
  let reset = new Float64Array(size);
  let retry = new Float64Array(size);
  let jAt = new Int32Array(size);
  let n = 0;
  let dropped = 0;
  let horizon = Number.NEGATIVE_INFINITY;
  // The judged 429s (parallel arrays; `at` is the entry index).
  let jSize = 16;
  let jEntry = new Int32Array(jSize);
  let jOp = new Uint8Array(jSize);
  let jUnit = new Uint8Array(jSize);
  let jLag = new Float64Array(jSize);
  let jFlags = new Uint8Array(jSize);
  let jVerdict = new Uint8Array(jSize);
  let jn = 0;
  const ops: string[] = [];
  const units: string[] = [];
  const indexIn = (list: string[], name: string): number => {
    const i = list.indexOf(name);
    if (i >= 0) return i;
    // Bounded by the plan (operations, scenarios): 255 is far past either.
    if (list.length >= 255) return 255;
    list.push(name);
    return list.length - 1;
  };

  const grow = (): void => {
    size = Math.min(cap, size * 2);
    const g = <T extends Float64Array | Uint16Array | Int32Array>(a: T, make: (k: number) => T): T => {
      const b = make(size);
      b.set(a);
      return b;
    };
    send = g(send, (k) => new Float64Array(k));
    answer = g(answer, (k) => new Float64Array(k));
    status = g(status, (k) => new Uint16Array(k));
    limit = g(limit, (k) => new Float64Array(k));
    remaining = g(remaining, (k) => new Float64Array(k));
    reset = g(reset, (k) => new Float64Array(k));
    retry = g(retry, (k) => new Float64Array(k));
    jAt = g(jAt, (k) => new Int32Array(k));
  };
  const growJudged = (): void => {
    jSize *= 2;
    const g = <T extends Float64Array | Uint8Array | Int32Array>(a: T, make: (k: number) => T): T => {
      const b = make(jSize);
      b.set(a);
      return b;
    };
    jEntry = g(jEntry, (k) => new Int32Array(k));
    jOp = g(jOp, (k) => new Uint8Array(k));
    jUnit = g(jUnit, (k) => new Uint8Array(k));
    jLag = g(jLag, (k) => new Float64Array(k));
    jFlags = g(jFlags, (k) => new Uint8Array(k));
    jVerdict = g(jVerdict, (k) => new Uint8Array(k));
  };
  /** Drops the oldest half (by position: entries arrive nearly in send order). */
  const dropHalf = (): void => {
    const half = n >>> 1;
    for (let i = 0; i < half; i++) horizon = Math.max(horizon, send[i] as number);
    for (const a of [send, answer, limit, remaining, reset, retry]) a.copyWithin(0, half, n);
    status.copyWithin(0, half, n);
    jAt.copyWithin(0, half, n);
    n -= half;
    dropped += half;
    // Judged 429s of the dropped entries go with them (their verdicts stay counted as they are).
    let keep = 0;
    for (let k = 0; k < jn; k++) {
      const e = (jEntry[k] as number) - half;
      if (e < 0) continue;
      jEntry[keep] = e;
      jOp[keep] = jOp[k] as number;
      jUnit[keep] = jUnit[k] as number;
      jLag[keep] = jLag[k] as number;
      jFlags[keep] = jFlags[k] as number;
      jVerdict[keep] = jVerdict[k] as number;
      jAt[e] = keep;
      keep++;
    }
    jn = keep;
  };

  /** Entry order sorted by send time (stable): entries are appended by answer time. */
  const order = (): Int32Array => {
    const idx = new Int32Array(n);
    for (let i = 0; i < n; i++) idx[i] = i;
    let sorted = true;
    for (let i = 1; i < n && sorted; i++) if ((send[i] as number) < (send[i - 1] as number)) sorted = false;
    if (!sorted) idx.sort((a, b) => (send[a] as number) - (send[b] as number) || a - b);
    return idx;
  };

  return {
    add(e, judged) {
      if (n === cap) dropHalf();
      if (n === size) grow();
      send[n] = e.sendUs;
      answer[n] = e.answerUs === undefined ? Number.POSITIVE_INFINITY : e.answerUs;
      status[n] = e.status;
      limit[n] = nanOf(e.limit);
      remaining[n] = nanOf(e.remaining);
      reset[n] = nanOf(e.reset);
      retry[n] = nanOf(e.retryAfterS);
      jAt[n] = -1;
      let j = -1;
      if (judged !== undefined) {
        if (jn === jSize) growJudged();
        jEntry[jn] = n;
        jOp[jn] = indexIn(ops, judged.op);
        jUnit[jn] = judged.unit === undefined ? 0 : indexIn(units, judged.unit);
        jLag[jn] = judged.lagUs;
        jFlags[jn] = judged.flags;
        jVerdict[jn] = verdictCode(judged.verdict);
        j = jn++;
        jAt[n] = j;
      }
      n++;
      return j;
    },
    get size() {
      return n;
    },
    columns() {
      const idx = order();
      const cols = allocateEvidenceColumns(n);
      for (let k = 0; k < n; k++) {
        const i = idx[k] as number;
        cols.send[k] = send[i] as number;
        cols.answer[k] = answer[i] as number;
        cols.status[k] = status[i] as number;
        cols.limit[k] = limit[i] as number;
        cols.remaining[k] = remaining[i] as number;
        cols.reset[k] = reset[i] as number;
        cols.retryAfter[k] = retry[i] as number;
        cols.judgedAt[k] = jAt[i] as number;
      }
      return { columns: cols, verdicts: jVerdict.slice(0, jn) };
    },
    toReport(o) {
      const idx = order();
      const sendUs: number[] = [];
      const answerUs: (number | null)[] = [];
      const st: number[] = [];
      const li: (number | null)[] = [];
      const re: (number | null)[] = [];
      const rs: (number | null)[] = [];
      const ra: (number | null)[] = [];
      const at: number[] = [];
      const jo: number[] = [];
      const ju: number[] = [];
      const jl: number[] = [];
      const jf: number[] = [];
      const jv: number[] = [];
      let prevSend = 0;
      let prevReset = 0;
      let prevAt = 0;
      for (let k = 0; k < n; k++) {
        const i = idx[k] as number;
        const s = Math.round(send[i] as number);
        sendUs.push(s - prevSend);
        prevSend = s;
        const a = answer[i] as number;
        answerUs.push(Number.isFinite(a) ? Math.max(0, Math.round(a) - s) : null);
        st.push(status[i] as number);
        li.push(nullOf(limit[i] as number));
        re.push(nullOf(remaining[i] as number));
        const r = reset[i] as number;
        if (Number.isNaN(r)) rs.push(null);
        else {
          rs.push(r - prevReset);
          prevReset = r;
        }
        ra.push(nullOf(retry[i] as number));
        const j = jAt[i] as number;
        if (j >= 0) {
          at.push(k - prevAt);
          prevAt = k;
          jo.push(jOp[j] as number);
          ju.push(jUnit[j] as number);
          jl.push(Math.max(0, Math.round(jLag[j] as number)));
          jf.push(jFlags[j] as number);
          jv.push((o.verdicts ?? jVerdict)[j] as number);
        }
      }
      return {
        of: o.of,
        covers: 1,
        ...(o.contract === undefined ? {} : { contract: o.contract }),
        ...(o.tenant === undefined ? {} : { tenant: o.tenant }),
        units: [...units],
        ops: [...ops],
        dropped,
        ...(dropped > 0 ? { horizonUs: Math.round(horizon) } : {}),
        sendUs,
        answerUs,
        status: st,
        ...columnsPresent({ limit: li, remaining: re, reset: rs, retryAfterS: ra }),
        judged: { at, op: jo, unit: ju, lagUs: jl, flags: jf, verdict: jv },
        findings: { ...o.findings },
      };
    },
  };
}
