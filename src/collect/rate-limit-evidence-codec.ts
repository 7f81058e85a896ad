/**
 * Reading a token's evidence as report.json carries it (`rate-limit-evidence.ts`): whether its
 * columns line up, the columns decoded on a clock, and the union of several processes' evidence
 * (workers, shards) on the merged report's clock. Pure.
 */
import { allocateEvidenceColumns, columnsPresent, EVIDENCE_CAP, nullOf, type EvidenceColumns, type RateLimitEvidence } from './rate-limit-evidence.js';

/** Why a report's evidence could not be read (columns of different lengths, indexes out of range). */
export function evidenceProblem(e: RateLimitEvidence): string | undefined {
  const n = e.sendUs.length;
  for (const [name, col] of [['answerUs', e.answerUs], ['status', e.status], ['limit', e.limit], ['remaining', e.remaining], ['reset', e.reset], ['retryAfterS', e.retryAfterS]] as const) {
    if (col !== undefined && col.length !== n) return `${name} has ${col.length} entries, sendUs ${n}`;
  }
  const j = e.judged;
  const m = j.at.length;
  for (const [name, col] of [['op', j.op], ['unit', j.unit], ['lagUs', j.lagUs], ['flags', j.flags], ['verdict', j.verdict]] as const) {
    if (col.length !== m) return `judged.${name} has ${col.length} entries, judged.at ${m}`;
  }
  let k = 0;
  for (const d of j.at) {
    k += d;
    if (!(k >= 0 && k < n)) return `judged.at points past the ${n} entries`;
  }
  return undefined;
}

/** The columns of report.json's evidence (shifted by `shiftUs`), sorted by send. Call `evidenceProblem` first. */
export function decodeEvidence(e: RateLimitEvidence, shiftUs = 0): { readonly columns: EvidenceColumns; readonly verdicts: Uint8Array } {
  const n = e.sendUs.length;
  const cols = allocateEvidenceColumns(n);
  let s = shiftUs;
  let r = 0;
  for (let i = 0; i < n; i++) {
    s += e.sendUs[i] as number;
    cols.send[i] = s;
    const a = e.answerUs[i];
    cols.answer[i] = a === null || a === undefined ? Number.POSITIVE_INFINITY : s + a;
    cols.status[i] = e.status[i] as number;
    cols.limit[i] = e.limit?.[i] ?? Number.NaN;
    cols.remaining[i] = e.remaining?.[i] ?? Number.NaN;
    const dr = e.reset?.[i];
    if (dr === null || dr === undefined) cols.reset[i] = Number.NaN;
    else {
      r += dr;
      cols.reset[i] = r;
    }
    cols.retryAfter[i] = e.retryAfterS?.[i] ?? Number.NaN;
  }
  let k = 0;
  const verdicts = new Uint8Array(e.judged.at.length);
  e.judged.at.forEach((d, j) => {
    k += d;
    cols.judgedAt[k] = j;
    verdicts[j] = e.judged.verdict[j] as number;
  });
  return { columns: cols, verdicts };
}

/**
 * The union of several processes' evidence of one token (`shiftUs` places each on the merged
 * report's clock): sorted by send, scenarios and operations named once, at most `cap` entries
 * (the oldest beyond it dropped, their 429s keeping their verdicts). Parts whose evidence cannot
 * be read are left out (say so with `evidenceProblem`).
 */
export function mergeEvidence(parts: readonly { readonly evidence: RateLimitEvidence; readonly shiftUs: number }[], cap = EVIDENCE_CAP): RateLimitEvidence | undefined {
  const usable = parts.filter((p) => evidenceProblem(p.evidence) === undefined);
  const first = usable[0];
  if (first === undefined) return undefined;
  const units: string[] = [];
  const ops: string[] = [];
  const idx = (list: string[], name: string | undefined): number => {
    if (name === undefined) return 0;
    const i = list.indexOf(name);
    if (i >= 0) return i;
    list.push(name);
    return list.length - 1;
  };
  interface Row {
    s: number;
    a: number;
    st: number;
    l: number;
    r: number;
    rs: number;
    ra: number;
    j: { op: number; unit: number; lag: number; flags: number; verdict: number } | undefined;
  }
  const rows: Row[] = [];
  let dropped = 0;
  let horizon = Number.NEGATIVE_INFINITY;
  const findings: Record<string, number> = {};
  for (const p of usable) {
    const e = p.evidence;
    const { columns: c } = decodeEvidence(e, p.shiftUs);
    dropped += e.dropped;
    if (e.horizonUs !== undefined) horizon = Math.max(horizon, e.horizonUs + p.shiftUs);
    for (const [k, n] of Object.entries(e.findings)) findings[k] = (findings[k] ?? 0) + n;
    for (let i = 0; i < c.n; i++) {
      const j = c.judgedAt[i] as number;
      rows.push({
        s: c.send[i] as number,
        a: c.answer[i] as number,
        st: c.status[i] as number,
        l: c.limit[i] as number,
        r: c.remaining[i] as number,
        rs: c.reset[i] as number,
        ra: c.retryAfter[i] as number,
        j:
          j < 0
            ? undefined
            : {
                op: idx(ops, e.ops[e.judged.op[j] as number]),
                unit: idx(units, e.units[e.judged.unit[j] as number]),
                lag: e.judged.lagUs[j] as number,
                flags: e.judged.flags[j] as number,
                verdict: e.judged.verdict[j] as number,
              },
      });
    }
  }
  rows.sort((x, y) => x.s - y.s);
  if (rows.length > cap) {
    const gone = rows.splice(0, rows.length - cap);
    dropped += gone.length;
    for (const g of gone) horizon = Math.max(horizon, g.s);
  }
  const sendUs: number[] = [];
  const answerUs: (number | null)[] = [];
  const judged = { at: [] as number[], op: [] as number[], unit: [] as number[], lagUs: [] as number[], flags: [] as number[], verdict: [] as number[] };
  const reset: (number | null)[] = [];
  let prevSend = 0;
  let prevReset = 0;
  let prevAt = 0;
  rows.forEach((row, k) => {
    const s = Math.round(row.s);
    sendUs.push(s - prevSend);
    prevSend = s;
    answerUs.push(Number.isFinite(row.a) ? Math.max(0, Math.round(row.a) - s) : null);
    if (Number.isNaN(row.rs)) reset.push(null);
    else {
      reset.push(row.rs - prevReset);
      prevReset = row.rs;
    }
    if (row.j !== undefined) {
      judged.at.push(k - prevAt);
      prevAt = k;
      judged.op.push(row.j.op);
      judged.unit.push(row.j.unit);
      judged.lagUs.push(row.j.lag);
      judged.flags.push(row.j.flags);
      judged.verdict.push(row.j.verdict);
    }
  });
  const e0 = first.evidence;
  return {
    of: Math.max(...usable.map((p) => p.evidence.of)),
    covers: usable.reduce((n, p) => n + p.evidence.covers, 0),
    ...(e0.contract === undefined ? {} : { contract: e0.contract }),
    ...(e0.tenant === undefined ? {} : { tenant: e0.tenant }),
    units,
    ops,
    dropped,
    ...(Number.isFinite(horizon) ? { horizonUs: Math.round(horizon) } : {}),
    sendUs,
    answerUs,
    status: rows.map((r) => r.st),
    ...columnsPresent({ limit: rows.map((r) => nullOf(r.l)), remaining: rows.map((r) => nullOf(r.r)), reset, retryAfterS: rows.map((r) => nullOf(r.ra)) }),
    judged,
    findings,
  };
}
