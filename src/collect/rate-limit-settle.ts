/**
 * Settling a token's 429 verdicts on its evidence (`rate-limit-judge.ts`), and what that changes:
 * the verdicts the figures were counted with (each 429's as it was judged when it came, or a
 * shard's own) against the settled ones. The caller moves each changed 429 between the counts
 * (`expected429`, `premature429`, `uncertain429`, `byOp`) and the SLI classes it counted in
 * (premature is bad; expected and uncertain are excluded). Pure.
 */
import type { ThrottleClass } from '../core/types.js';
import { EVIDENCE_FLAG, verdictOf, type RateLimitEvidence } from './rate-limit-evidence.js';
import { decodeEvidence, evidenceProblem } from './rate-limit-evidence-codec.js';
import { judgeEvidence } from './rate-limit-judge.js';

/** A 429 whose verdict settling changed. */
export interface SettleChange {
  /** The scenario it belongs to (undefined when the evidence names none). */
  readonly unit: string | undefined;
  readonly op: string;
  /** Its intended start, µs from the report's start (places it in its slice). */
  readonly intendedUs: number;
  /** True when its SLI class does not follow the verdict (outside the SLO). */
  readonly outsideSlo: boolean;
  readonly from: ThrottleClass;
  readonly to: ThrottleClass;
}

/** What settling found. */
export interface Settled {
  /** The evidence with the settled verdicts and findings (absent for a sum of several tenants'). */
  readonly evidence?: RateLimitEvidence;
  readonly changes: readonly SettleChange[];
  /** Findings of the evidence before and after (header finding counts move from one to the other). */
  readonly findingsBefore: Readonly<Record<string, number>>;
  readonly findingsAfter: Readonly<Record<string, number>>;
  readonly rolling: boolean;
}

/**
 * Settles the verdicts of `e` (time 0 at `startWallMs`). A problem (columns that do not line
 * up) is returned as a string: the verdicts then stay as they are.
 */
export function settleEvidence(e: RateLimitEvidence, startWallMs: number): Settled | string {
  const problem = evidenceProblem(e);
  if (problem !== undefined) return problem;
  const { columns, verdicts: before } = decodeEvidence(e);
  const share = e.covers > 0 ? Math.max(1, e.of / e.covers) : 1;
  const j = judgeEvidence(columns, before.length, {
    startWallMs,
    contract: e.contract,
    share,
    ...(e.horizonUs === undefined ? {} : { horizonUs: e.horizonUs }),
  });
  const changes: SettleChange[] = [];
  let k = 0;
  const sends = columns.send;
  for (let i = 0; i < before.length; i++) {
    k += e.judged.at[i] as number;
    const from = verdictOf(before[i] as number);
    const to = verdictOf(j.verdicts[i] as number);
    if (from === to) continue;
    changes.push({
      unit: e.units[e.judged.unit[i] as number],
      op: e.ops[e.judged.op[i] as number] ?? 'run',
      intendedUs: (sends[k] as number) - (e.judged.lagUs[i] as number),
      outsideSlo: ((e.judged.flags[i] as number) & EVIDENCE_FLAG.outsideSlo) !== 0,
      from,
      to,
    });
  }
  const findingsAfter: Record<string, number> = {};
  for (const [kind, n] of Object.entries(j.findings)) if (n !== undefined && n > 0) findingsAfter[kind] = n;
  return {
    evidence: { ...e, judged: { ...e.judged, verdict: Array.from(j.verdicts) }, findings: findingsAfter },
    changes,
    findingsBefore: e.findings,
    findingsAfter,
    rolling: j.rolling,
  };
}

/** The parts of a rate-limit section settling rewrites. */
export interface SettledCounts {
  readonly expected429: number;
  readonly premature429: number;
  readonly uncertain429?: number;
  readonly headerViolations: Readonly<Record<string, number>>;
  readonly rolling?: boolean;
  readonly byOp?: Readonly<Record<string, ThrottleCounts>>;
}

/** 429 verdicts of one operation. */
export interface ThrottleCounts {
  readonly expected: number;
  readonly premature: number;
  readonly uncertain: number;
}

const KEY = { expected: 'expected429', premature: 'premature429', uncertain: 'uncertain429' } as const;

/**
 * A rate-limit section with `changes` (those of `unit`, or all when `unit` is undefined) moved
 * between its counts, and, when it holds the evidence (`settled`), its findings and shape as
 * settled.
 */
export function applySettled<T extends SettledCounts>(rl: T, changes: readonly SettleChange[], settled?: Settled): T {
  const counts = { expected429: rl.expected429, premature429: rl.premature429, uncertain429: rl.uncertain429 ?? 0 };
  const byOp: Record<string, { expected: number; premature: number; uncertain: number }> = {};
  for (const [op, c] of Object.entries(rl.byOp ?? {})) byOp[op] = { ...c };
  for (const ch of changes) {
    if (ch.from === 'none' || ch.to === 'none') continue;
    counts[KEY[ch.from]]--;
    counts[KEY[ch.to]]++;
    const o = (byOp[ch.op] ??= { expected: 0, premature: 0, uncertain: 0 });
    o[ch.from] = Math.max(0, o[ch.from] - 1);
    o[ch.to]++;
  }
  let headerViolations = rl.headerViolations;
  let rolling = rl.rolling;
  if (settled !== undefined) {
    const hv: Record<string, number> = { ...rl.headerViolations };
    for (const [kind, n] of Object.entries(settled.findingsBefore)) {
      const left = (hv[kind] ?? 0) - n;
      if (left > 0) hv[kind] = left;
      else delete hv[kind];
    }
    for (const [kind, n] of Object.entries(settled.findingsAfter)) hv[kind] = (hv[kind] ?? 0) + n;
    headerViolations = hv;
    rolling = settled.rolling ? true : undefined;
  }
  const { rolling: _r, ...rest } = rl;
  return {
    ...rest,
    ...counts,
    headerViolations,
    ...(rolling === true ? { rolling: true } : {}),
    ...(rl.byOp === undefined && changes.length === 0 ? {} : { byOp }),
  } as unknown as T;
}
