/**
 * The 429 verdicts of a report, settled on the evidence it carries (`rateLimit.evidence`): at the
 * run's end, on everything the run saw, and after a merge, on the union of the workers' or
 * shards' evidence, so the counts do not depend on how the run was split. Each 429 whose verdict
 * changes moves between the rate-limit counts, its operation's SLI classes (premature is bad;
 * expected and uncertain are excluded), the `slo` events and its slice, in its scenario and in the
 * run's total; the thresholds are judged again when anything moved. Pure.
 *
 * A report without evidence (written before it was kept) keeps its verdicts; `mergeReports`
 * says so in a warning (`RATE_LIMIT_EVIDENCE_MISSING`).
 */
import { applySettled, settleEvidence, type SettleChange, type Settled } from '../collect/rate-limit-settle.js';
import type { SliClass } from '../core/types.js';
import { thresholdOfResult, type ParsedThreshold, type ThresholdResult } from '../slo/thresholds.js';
import { evaluateThresholdsOn } from './metrics.js';
import type { Report, RunWarning, ScenarioReport } from './model.js';
import type { OpReport } from './sections/ops-schema.js';
import { sloOf } from './sections/slo.js';
import { reportVerdict } from './verdict.js';

type Section = Pick<ScenarioReport, 'ops' | 'rateLimit' | 'slo'>;

const sliOf = (c: SettleChange, v: SettleChange['from']): SliClass => (c.outsideSlo ? 'excluded' : v === 'premature' ? 'bad' : 'excluded');

/** `s` with `changes` moved between its counts (and `settled` findings, when it holds the evidence). */
function patchSection<T extends Section>(s: T, changes: readonly SettleChange[], settled: Settled | undefined): T {
  if (changes.length === 0 && settled === undefined) return s;
  const ops: Record<string, OpReport> = { ...(s.ops as Record<string, OpReport>) };
  const slo = { good: s.slo.good, bad: s.slo.bad, excluded: s.slo.excluded, cut: s.slo.cut ?? 0 };
  for (const c of changes) {
    const from = sliOf(c, c.from);
    const to = sliOf(c, c.to);
    if (from === to) continue;
    const op = ops[c.op];
    if (op !== undefined) ops[c.op] = { ...op, [from]: Math.max(0, op[from] - 1), [to]: op[to] + 1 };
    slo[from] = Math.max(0, slo[from] - 1);
    slo[to]++;
  }
  const rateLimit = applySettled(s.rateLimit, changes, settled);
  return {
    ...s,
    ops: ops as T['ops'],
    rateLimit: settled?.evidence === undefined ? rateLimit : { ...rateLimit, evidence: settled.evidence },
    slo: sloOf(slo, s.slo.objective),
  };
}

/** The slices with `changes` moved between their SLI classes (by intended start). */
function patchSlices(slices: Report['slices'], sliceMs: number, changes: readonly SettleChange[]): Report['slices'] {
  if (changes.length === 0 || slices.length === 0) return slices;
  const out = [...slices];
  for (const c of changes) {
    const from = sliOf(c, c.from);
    const to = sliOf(c, c.to);
    if (from === to) continue;
    const i = Math.min(out.length - 1, Math.max(0, Math.floor(c.intendedUs / (sliceMs * 1000))));
    const s = out[i];
    if (s === undefined) continue;
    out[i] = { ...s, [from]: Math.max(0, s[from] - 1), [to]: s[to] + 1 };
  }
  return out;
}

/** Judges `r`'s thresholds again (those this version reads; the others stay as they were). */
function judgedAgain(r: Report): Report {
  if (r.thresholds.length === 0) return r;
  const parsed: ParsedThreshold[] = [];
  const kept: ThresholdResult[] = [];
  for (const t of r.thresholds) {
    const p = thresholdOfResult(t);
    if (p === undefined) kept.push(t);
    else parsed.push(p);
  }
  const again = evaluateThresholdsOn(r, parsed);
  const thresholds = r.thresholds.map((t) => (thresholdOfResult(t) === undefined ? t : (again.shift() as ThresholdResult)));
  // A merge that lacks a shard is no pass, whatever its thresholds say (as `sections/thresholds.ts` merges it).
  const partial = (r.shards?.missing.length ?? 0) > 0;
  const passed = thresholds.every((t) => t.passed) && !partial;
  return { ...r, thresholds, passed, verdict: reportVerdict({ interrupted: r.interrupted, abortedBy: r.abortedBy, passed, partial }) };
}

/** What settling a report did: the report, and warnings about evidence it could not read. */
export interface SettledReport {
  readonly report: Report;
  readonly warnings: readonly RunWarning[];
}

/**
 * Settles every token's 429s in `report` on its evidence: a run of one scenario holds it at the
 * top level, a run of several in each tenant's scenario sections. With `judge`, the thresholds
 * are judged again when a count moved (a merged report's; a run's are judged after).
 */
export function settleRateLimits(report: Report, options: { readonly judge?: boolean } = {}): SettledReport {
  const startWallMs = Date.parse(report.startedAt);
  const warnings: RunWarning[] = [];
  const settle = (where: string, rl: Report['rateLimit']): Settled | undefined => {
    const e = rl.evidence;
    if (e === undefined) return undefined;
    const s = settleEvidence(e, startWallMs);
    if (typeof s === 'string') {
      warnings.push({ code: 'RATE_LIMIT_EVIDENCE_MISSING', message: `${where}: its rate-limit evidence cannot be read (${s}): its 429s keep the verdicts they had` });
      return undefined;
    }
    return s;
  };
  let out = report;
  let moved = false;
  const scenarios = report.scenarios;
  if (scenarios === undefined || Object.keys(scenarios).length === 0) {
    const s = settle('rateLimit', report.rateLimit);
    if (s === undefined) return { report, warnings };
    moved = s.changes.length > 0 || JSON.stringify(s.findingsBefore) !== JSON.stringify(s.findingsAfter);
    const top = patchSection(report, s.changes, s);
    out = { ...report, ...top, slices: patchSlices(report.slices, report.sliceMs, s.changes) };
  } else {
    // One evidence per tenant (scenarios of one token hold the same); each change is its scenario's.
    const seen = new Set<string>();
    const changes: SettleChange[] = [];
    const holders = new Map<string, Settled>();
    for (const [name, section] of Object.entries(scenarios)) {
      const tenant = section.rateLimit.evidence?.tenant ?? name;
      if (seen.has(tenant)) continue;
      const s = settle(`scenarios.${name}.rateLimit`, section.rateLimit);
      if (s === undefined) continue;
      seen.add(tenant);
      holders.set(name, s);
      changes.push(...s.changes);
      if (s.changes.length > 0 || JSON.stringify(s.findingsBefore) !== JSON.stringify(s.findingsAfter)) moved = true;
    }
    if (holders.size === 0) return { report, warnings };
    const patched: Record<string, ScenarioReport> = {};
    for (const [name, section] of Object.entries(scenarios)) {
      // The tenant's other scenarios hold its evidence too: they settle with the first.
      const tenant = section.rateLimit.evidence?.tenant;
      const holder = holders.get(name) ?? [...holders.entries()].find(([n]) => tenant !== undefined && scenarios[n]?.rateLimit.evidence?.tenant === tenant)?.[1];
      const mine = changes.filter((c) => c.unit === name);
      patched[name] = patchSection(section, mine, holder);
    }
    // The run's line adds its tenants up: their changes, and their findings as settled.
    const allSettled = [...holders.values()];
    const findingsBefore: Record<string, number> = {};
    const findingsAfter: Record<string, number> = {};
    for (const s of allSettled) {
      for (const [k, n] of Object.entries(s.findingsBefore)) findingsBefore[k] = (findingsBefore[k] ?? 0) + n;
      for (const [k, n] of Object.entries(s.findingsAfter)) findingsAfter[k] = (findingsAfter[k] ?? 0) + n;
    }
    const pseudo: Settled = { changes, findingsBefore, findingsAfter, rolling: allSettled.some((s) => s.rolling) };
    const top = patchSection(report, changes, pseudo);
    const { evidence: _e, ...topRate } = top.rateLimit;
    out = { ...report, ...top, rateLimit: topRate, slices: patchSlices(report.slices, report.sliceMs, changes), scenarios: patched };
  }
  return { report: moved && options.judge === true ? judgedAgain(out) : out, warnings };
}

/**
 * A merged report settled on the union of its parts' evidence, with a warning naming each part
 * that had 429s and no evidence (an older flowgauge wrote it): its verdicts are its own, judged on
 * its share alone, and added as they are.
 */
export function settleMerged(merged: Report, parts: readonly { readonly value: Report; readonly source: { readonly name: string } }[]): Report {
  if (parts.length < 2) return merged;
  const bare = parts.filter((p) => {
    const sections = [p.value.rateLimit, ...Object.values(p.value.scenarios ?? {}).map((s) => s.rateLimit)];
    const judged = p.value.scenarios === undefined ? [p.value.rateLimit] : sections.slice(1);
    return judged.some((rl) => rl.responses429 > 0 && rl.evidence === undefined);
  });
  const { report, warnings } = settleRateLimits(merged, { judge: true });
  const missing: RunWarning[] =
    bare.length === 0
      ? []
      : [
          {
            code: 'RATE_LIMIT_EVIDENCE_MISSING',
            message: `${bare.map((p) => p.source.name).join(', ')} carr${bare.length === 1 ? 'ies' : 'y'} no rate-limit evidence (written by an older flowgauge): ${bare.length === 1 ? 'its' : 'their'} 429 verdicts are ${bare.length === 1 ? 'its' : 'their'} own, judged on ${bare.length === 1 ? 'its' : 'their'} share of the traffic alone, and added as they are`,
          },
        ];
  const all = [...warnings, ...missing];
  return all.length === 0 ? report : { ...report, warnings: [...(report.warnings ?? []), ...all] };
}
