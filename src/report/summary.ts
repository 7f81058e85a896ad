/**
 * The end-of-run terminal summary: one screen with the figures a release engineer looks at.
 * Returns a string; printing it is the CLI's job.
 */
import { opKeysOf } from '../core/ops.js';
import { FOLLOW_ROW, followPollsRow } from './follow-row.js';
import { fmtAvailability, fmtCut, fmtDuration, fmtJoinedLate, fmtNumber, fmtOk, fmtRatio, fmtShare, fmtThresholdValue } from './format.js';
import type { Report } from './model.js';
import { journeySummaryLines } from './journey-sections.js';
import { headlineOf } from './headline.js';
import { limitText, tenantSummaryLines, throttleCounts } from './rate-limit-view.js';
import { streamSummaryLines } from './stream-lines.js';
import { onlyUnknownTokensDiffer } from './audit-view.js';

/** Options of `renderSummary`. */
export interface SummaryOptions {
  /** ANSI colours (green/red verdicts, dim headers). Default false. */
  readonly color?: boolean;
  /** This process ran one shard (1-based index) of several: the figures are its share only. */
  readonly shard?: { readonly index: number; readonly count: number };
}

const ANSI = { green: '\x1b[32m', red: '\x1b[31m', dim: '\x1b[2m', bold: '\x1b[1m', reset: '\x1b[0m' } as const;

/** Visible width, ignoring ANSI sequences. */
const width = (s: string): number => s.replace(/\x1b\[[0-9;]*m/g, '').length;

/** Aligns columns: the first left, the rest right (numbers). */
function grid(rows: readonly (readonly string[])[]): string[] {
  const widths: number[] = [];
  for (const r of rows) r.forEach((c, i) => (widths[i] = Math.max(widths[i] ?? 0, width(c))));
  return rows.map((r) =>
    r
      .map((c, i) => {
        const pad = ' '.repeat((widths[i] ?? 0) - width(c));
        return i === 0 ? c + pad : pad + c;
      })
      .join('  ')
      .trimEnd(),
  );
}

const shardTag = (s: { readonly index: number; readonly count: number } | undefined): string => (s === undefined ? '' : ` (shard ${s.index}/${s.count})`);

/** Renders the summary. */
export function renderSummary(report: Report, options: SummaryOptions = {}): string {
  const paint = (code: keyof typeof ANSI, s: string): string => (options.color === true ? `${ANSI[code]}${s}${ANSI.reset}` : s);
  const lines: string[] = [];
  const head = headlineOf(report);
  const verdict = head.word === 'PASS' ? paint('green', 'PASS') : paint('red', head.word);
  const joined = fmtJoinedLate(report.load, report.shards !== undefined);
  lines.push(
    `${paint('bold', 'flowgauge')} ${report.scenario}${shardTag(options.shard ?? report.shard)}: ${verdict} ` +
      `in ${fmtNumber(report.durationS)} s, ${report.load.started} started, ${report.load.dropped} dropped, ` +
      `${joined === undefined ? '' : `${joined}, `}` +
      `${(report.load.cancelled ?? 0) > 0 ? `${report.load.cancelled} cancelled by the stop, ` : ''}` +
      `${fmtNumber(report.load.achievedRatePerS)}/s`,
  );
  for (const n of head.notes) lines.push(paint(head.word === 'PASS' ? 'bold' : 'red', n));
  lines.push('');

  // `ok` judges only what counts against the SLO; `excluded` shows what it leaves out (expected
  // 429s), so 'ok 100%' beside 98 % excluded cannot pass for a healthy service.
  const rows: string[][] = [['op', 'count', 'ok', 'excluded', '429', 'p50', 'p90', 'p99', 'max'].map((h) => paint('dim', h))];
  for (const name of opKeysOf(report.ops)) {
    const o = report.ops[name];
    if (o === undefined) continue;
    const l = o.latencyMs;
    const excluded = o.excluded === 0 || o.count === 0 ? '0' : `${o.excluded} (${((o.excluded / o.count) * 100).toFixed(1)}%)`;
    rows.push([name, String(o.count), fmtOk(o.good, o.bad), excluded, String(o.statuses['429'] ?? 0), fmtDuration(l.p50), fmtDuration(l.p90), fmtDuration(l.p99), fmtDuration(l.max)]);
  }
  const follow = followPollsRow(report);
  if (follow !== undefined) rows.push([FOLLOW_ROW, String(follow.count), fmtOk(follow.good, follow.bad), '—', String(follow.responses429), '—', '—', '—', '—']);
  if (rows.length > 1) lines.push(...grid(rows), '');
  const phases = phaseRows(report);
  if (phases.length > 0) lines.push(...grid([PHASE_HEAD.map((h) => paint('dim', h)), ...phases]), '');

  lines.push(...streamSummaryLines(report.stream));
  const rl = report.rateLimit;
  const counts = throttleCounts(rl);
  const shown = rl.premature429 > 0 ? counts.replace(`${rl.premature429} premature`, paint('red', `${rl.premature429} premature`)) : counts;
  lines.push(`429s    ${shown}; limit ${limitText(report)}, reset ${rl.resetSemantics}`);
  lines.push(...tenantSummaryLines(report));
  const slo = report.slo;
  const availability = fmtAvailability(slo);
  const avail = slo.availability === null ? '—' : paint(availability.met ? 'green' : 'red', availability.text);
  lines.push(
    `slo     availability ${avail} (objective ${fmtRatio(slo.objective)}), ` +
      `budget consumed ${fmtShare(slo.errorBudgetConsumed)}, burn rate ${fmtNumber(slo.burnRate)}`,
  );
  const errors = errorsLine(report);
  if (errors !== undefined) lines.push(errors);
  const cut = fmtCut(report.load);
  if (cut !== undefined) lines.push(`cut     ${cut}`);
  if (report.contractViolationTotals.total > 0) lines.push(`contract violations: ${report.contractViolationTotals.total}`);
  lines.push(...extrasLines(report, paint));
  lines.push(...journeySummaryLines(report));

  if (report.thresholds.length > 0) {
    const defaults = report.thresholds.every((t) => t.implicit === true);
    if (lines[lines.length - 1] !== '') lines.push('');
    lines.push(paint('dim', defaults ? 'thresholds (the defaults: the scenario sets none; thresholds: {} turns them off)' : 'thresholds'));
    const trows = report.thresholds.map((t) => [
      `${t.passed ? paint('green', '✓') : paint('red', '✗')} ${t.metric}`,
      `${t.op} ${fmtThresholdValue(t.metric, t.value)}`,
      fmtThresholdValue(t.metric, t.observed),
    ]);
    lines.push(...grid(trows).map((l) => `  ${l}`));
  }
  return `${lines.join('\n')}\n`;
}

/** Codes and statuses shown on the errors line (the rest are in report.md). */
const TOP_ERRORS = 4;

/**
 * What went wrong, across operations: the commonest error codes, then the HTTP statuses other
 * than 2xx, so an `ok` below 100 % has its reason on screen. 429s have their own line; the
 * answers of negative tests (sent to fail) are listed too, uncoloured, since they may be wanted.
 */
function errorsLine(report: Report): string | undefined {
  const codes = new Map<string, number>();
  const statuses = new Map<string, number>();
  for (const o of Object.values(report.ops)) {
    if (o === undefined) continue;
    for (const [code, n] of Object.entries(o.errors)) if (code !== 'RATE_LIMITED') codes.set(code, (codes.get(code) ?? 0) + n);
    for (const [status, n] of Object.entries(o.statuses)) if (!status.startsWith('2') && status !== '429') statuses.set(status, (statuses.get(status) ?? 0) + n);
  }
  if (codes.size === 0) return undefined;
  const top = (m: Map<string, number>, f: (k: string, n: number) => string): string => {
    const sorted = [...m].sort((a, b) => b[1] - a[1]);
    const shown = sorted.slice(0, TOP_ERRORS).map(([k, n]) => f(k, n));
    return sorted.length > TOP_ERRORS ? `${shown.join(', ')}, …` : shown.join(', ');
  };
  const gloss = (k: string): string => (k === 'UNKNOWN' ? 'UNKNOWN (no interface error code)' : k);
  const http = statuses.size === 0 ? '' : `; HTTP ${top(statuses, (k, n) => `${k} ×${n}`)}`;
  return `errors  ${top(codes, (k, n) => `${n} ${gloss(k)}`)}${http}`;
}

const PHASE_HEAD = ['phases p50/p95', 'blocked', 'connect', 'tls', 'wait', 'receive'];

/** Where each operation's time went (k6's request phases), p50/p95. */
function phaseRows(report: Report): string[][] {
  const rows: string[][] = [];
  const cell = (p: { p50: number; p95: number }): string => (p.p95 === 0 ? '0' : `${fmtDuration(p.p50)}/${fmtDuration(p.p95)}`);
  for (const name of opKeysOf(report.ops)) {
    const ph = report.ops[name]?.phases;
    if (ph === undefined) continue;
    rows.push([name, cell(ph.blockedMs), cell(ph.connectMs), cell(ph.tlsMs), cell(ph.waitMs), cell(ph.receiveMs)]);
  }
  return rows;
}

/** One line each for the sections a run adds when it follows runs, receives notifications or audits. */
function extrasLines(report: Report, paint: (c: 'red' | 'green' | 'dim', t: string) => string): string[] {
  const out: string[] = [];
  const a = report.asyncRuns;
  if (a !== undefined && a.followed.run + a.followed.trigger > 0) {
    out.push(
      `async   ${a.followed.run + a.followed.trigger} followed (${a.followed.run} runs, ${a.followed.trigger} triggers); ` +
        `completion p50 ${fmtDuration(a.timeToCompletionMs.p50)} p99 ${fmtDuration(a.timeToCompletionMs.p99)}, ` +
        `${fmtNumber(a.pollsPerRun.mean)} polls each, bias ~${fmtDuration(a.meanBiasMs)}`,
    );
  }
  const n = report.notifications;
  if (n !== undefined) {
    const rejected = Object.values(n.rejected).reduce((x, y) => x + y, 0);
    const bad = n.missing + n.duplicate + n.outOfOrder + rejected;
    out.push(
      `notify  ${n.received} received (${n.eventSet} names), ${n.matched}/${n.expected} matched, ` +
        paint(bad > 0 ? 'red' : 'green', `${n.missing} missing, ${n.duplicate} duplicate, ${n.outOfOrder} out of order, ${rejected} rejected`) +
        `; delivery p50 ${fmtDuration(n.deliveryLatencyMs.p50)}`,
    );
  }
  const audit = report.audit;
  // A run of several tenants has one audit per token: one line each, named by the tenant.
  const audits = audit?.tenants?.map((t) => ({ ...t, who: `${t.scenarios.join(', ')}: ` })) ?? (audit === undefined ? [] : [{ ...audit, who: '' }]);
  for (const a of audits) {
    const u = a.usage;
    if (u !== undefined) out.push(`audit   ${a.who}${usageAuditText(u, paint)}`);
    else if (a.who !== '' && a.sessions === undefined) out.push(paint('dim', `audit   ${a.who}no runs finished, nothing to compare`));
  }
  if (audit?.incomplete === true) out.push(paint('red', 'audit   incomplete: cut by its deadline or a stop before it had read everything'));
  for (const a of audits) {
    const sa = a.sessions;
    if (sa !== undefined && sa.sessions > 0) {
      out.push(`audit   ${a.who}sessions: ${sa.checked} read, ${sa.inOrder} in order, ${sa.countMatches} with the right count, ${sa.problems.length} problems`);
    }
  }
  return out;
}

/** The usage audit in words: agreement, a refused token, a service that ignores `flow_id`, or a difference. */
function usageAuditText(u: NonNullable<NonNullable<Report['audit']>['usage']>, paint: (c: 'red' | 'green' | 'dim', t: string) => string): string {
  const d = u.diff;
  const scope = u.filterIgnored === true ? ' (the service ignores flow_id: its whole account read once)' : '';
  if (u.forbidden === true) return paint('dim', `usage analytics not compared: this token may not read usage (${u.errors.join('; ') || 'refused'})`);
  if (u.exact) return `usage analytics agree: ${u.client.totalRuns} runs, ${u.client.totalTokens} tokens${scope}`;
  if (u.accountWide === true) return `usage analytics are the whole account's (every tenant's runs): ${u.service?.totalRuns ?? 0} runs, ${u.service?.totalTokens ?? 0} tokens, the tenants' sum; not a difference`;
  if (onlyUnknownTokensDiffer(u)) return `usage analytics agree on ${u.client.totalRuns} runs; tokens +${u.diff?.totalTokens ?? 0} are of ${u.clientUnknown.runsWithoutTokens} runs the client saw without their usage${scope}`;
  if (d === null) return paint('red', `usage analytics could not be read (${u.errors.join('; ') || 'no answer'})`);
  return paint('red', `usage analytics differ (service − client): runs ${signed(d.totalRuns)}, tokens ${signed(d.totalTokens)}${scope}`);
}

function signed(n: number): string {
  return n > 0 ? `+${n}` : String(n);
}
