/**
 * The Markdown report: verdict first (what a reader needs to decide), details after.
 * Returns a string; writing it is the CLI's job.
 */
import { opKeysOf } from '../core/ops.js';
import { STREAM_TIMINGS } from '../core/stream-timings.js';
import { burstSentence } from './stream-lines.js';
import { FOLLOW_ROW, FOLLOW_ROW_NOTE, followPollsRow } from './follow-row.js';
import type { Pct } from '../collect/histogram.js';
import { fmtAvailability, fmtCut, fmtDuration, fmtJoinedLate, fmtNumber, fmtOk, fmtRatio, fmtShare, fmtShards, fmtThresholdValue, streamTimingFormat } from './format.js';
import { headlineOf } from './headline.js';
import { journeyMarkdown } from './journey-sections.js';
import type { Report } from './model.js';
import { usageVerdict } from './audit-view.js';
import { limitText, tenantRateLimitRows, throttleCounts } from './rate-limit-view.js';
import { mdCell as cell, mdPlain as plain, mdTable as table } from './markdown-kit.js';


function verdict(r: Report): string[] {
  const passedN = r.thresholds.filter((t) => t.passed).length;
  const headline = headlineOf(r);
  const icon = { PASS: '✅', FAIL: '❌', INTERRUPTED: '⏹️', ABORTED: '🛑', PARTIAL: '🧩' }[headline.word];
  const out = [`## ${icon} ${headline.word}`, ''];
  for (const n of headline.notes) out.push(`> ${cell(n)}`, '');
  out.push(
    r.thresholds.length === 0
      ? 'No thresholds were set.'
      : `${passedN} of ${r.thresholds.length} thresholds passed.`,
  );
  if (r.thresholds.length > 0) {
    out.push(
      '',
      table(
        ['threshold', 'limit', 'observed', 'result'],
        r.thresholds.map((t) => [
          `\`${cell(t.metric)}\``,
          `${t.op} ${fmtThresholdValue(t.metric, t.value)}`,
          fmtThresholdValue(t.metric, t.observed),
          t.passed ? '✅ pass' : '❌ fail',
        ]),
      ),
    );
  }
  const s = r.slo;
  const { text, met } = fmtAvailability(s);
  out.push(
    '',
    `**Availability ${text}** against an objective of ${fmtRatio(s.objective)} ` +
      `(${s.availability === null ? 'nothing to judge' : met ? 'met' : 'missed'}); ` +
      `error budget consumed ${fmtShare(s.errorBudgetConsumed)}, burn rate ${fmtNumber(s.burnRate)}. ` +
      `Events: ${s.good} good, ${s.bad} bad, ${s.excluded} excluded (${s.allowedBadEvents} bad allowed).`,
  );
  return out;
}

function pctRow(name: string, p: Pct, fmt: (n: number) => string = fmtDuration): string[] {
  return [name, String(p.count), fmt(p.p50), fmt(p.p90), fmt(p.p95), fmt(p.p99), fmt(p.p999), fmt(p.max), fmt(p.mean)];
}

function runSection(r: Report): string[] {
  const l = r.load;
  const joined = fmtJoinedLate(l, r.shards !== undefined);
  const shards = fmtShards(r);
  return [
    '## Run',
    '',
    `- Target: ${plain(r.target.baseUrl)}${r.target.embedded ? ' (embedded reference service)' : ''}`,
    `- From ${r.startedAt} to ${r.endedAt} (${fmtNumber(r.durationS)} s)`,
    ...(shards === undefined ? [] : [`- ${plain(shards)}`]),
    `- Executor \`${cell(l.executor)}\`: target ${l.targetRatePerS === null ? '—' : `${fmtNumber(l.targetRatePerS)}/s`}, ` +
      `achieved ${fmtNumber(l.achievedRatePerS)}/s; ${l.started} started, ${l.dropped} dropped` +
      `${joined === undefined ? '' : `, ${joined}`}`,
    `- Schedule lag: p50 ${fmtDuration(l.scheduleLagMs.p50)}, p99 ${fmtDuration(l.scheduleLagMs.p99)}, max ${fmtDuration(l.scheduleLagMs.max)}`,
    ...(fmtCut(l) === undefined ? [] : [`- Cut: ${fmtCut(l) as string}`]),
  ];
}

function opsSection(r: Report): string[] {
  const rows = opKeysOf(r.ops).flatMap((name) => {
    const o = r.ops[name];
    if (o === undefined) return [];
    return [[`\`${name}\``, String(o.count), fmtOk(o.good, o.bad), String(o.bad), String(o.excluded), ...pctRow('', o.latencyMs).slice(2)]];
  });
  const follow = followPollsRow(r);
  if (follow !== undefined) rows.push([`\`${FOLLOW_ROW}\``, String(follow.count), fmtOk(follow.good, follow.bad), String(follow.bad), '—', '—', '—', '—', '—', '—', '—', '—']);
  if (rows.length === 0) return ['## Latency by operation', '', 'No requests completed.'];
  return [
    '## Latency by operation',
    '',
    'Measured from the intended start of each request (no coordinated omission).',
    '',
    table(
      ['op', 'count', 'ok', 'bad', 'excluded', 'p50', 'p90', 'p95', 'p99', 'p99.9', 'max', 'mean'],
      rows,
      [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11],
    ),
    ...(follow === undefined ? [] : ['', FOLLOW_ROW_NOTE]),
    ...phasesTable(r),
  ];
}

/** Request phases (p50 / p95 / p99 each) of the operations that reached a connection. */
function phasesTable(r: Report): string[] {
  const cell = (x: Pct): string => `${fmtDuration(x.p50)} / ${fmtDuration(x.p95)} / ${fmtDuration(x.p99)}`;
  const rows = opKeysOf(r.ops).flatMap((name) => {
    const ph = r.ops[name]?.phases;
    return ph === undefined ? [] : [[`\`${name}\``, cell(ph.blockedMs), cell(ph.connectMs), cell(ph.tlsMs), cell(ph.waitMs), cell(ph.receiveMs)]];
  });
  if (rows.length === 0) return [];
  return [
    '',
    '### Where the time went (p50 / p95 / p99)',
    '',
    'Blocked: queued for a free connection. Connect and TLS: opening a new connection. Wait: request sent to response head. Receive: head to last byte.',
    '',
    table(['op', 'blocked', 'connect', 'tls', 'wait', 'receive'], rows, [1, 2, 3, 4, 5]),
  ];
}

function streamSection(r: Report): string[] {
  const s = r.stream;
  if (s.count === 0) return [];
  const rows = STREAM_TIMINGS.flatMap((t) => {
    const x = s[t.field] as Pct | undefined;
    return x === undefined || x.count === 0 ? [] : [pctRow(t.label, x, streamTimingFormat(t))];
  });
  const burst = burstSentence(s);
  return [
    '## Stream timing',
    '',
    `${s.count} streams: ${s.completed} completed, ${s.incomplete} incomplete; ${s.tokens} tokens, ` +
      `${s.tokenCountMismatches} token-count mismatches with \`usage.completion_tokens\`.`,
    '',
    ...(burst === undefined ? [] : [`${burst}.`, '']),
    table(['timing', 'count', 'p50', 'p90', 'p95', 'p99', 'p99.9', 'max', 'mean'], rows, [1, 2, 3, 4, 5, 6, 7, 8]),
  ];
}

function rateLimitSection(r: Report): string[] {
  const rl = r.rateLimit;
  const out = [
    '## Rate limits',
    '',
    `- Advertised limit: ${r.scenarios === undefined ? (rl.advertisedLimit ?? 'none seen') : limitText(r)}; Reset semantics: \`${rl.resetSemantics}\`${rl.rolling === true ? ' (rolling: windows overlap, only Remaining judged)' : ''}`,
    `- 429 responses: ${throttleCounts(rl)}`,
  ];
  const tenants = tenantRateLimitRows(r);
  if (tenants.length > 0) {
    out.push(
      '',
      'Each tenant judged against its own limit, windows and headers:',
      '',
      table(['tenant', 'limit', 'reset', 'windows', '429s', 'header findings', 'latency (served answers)'], tenants.map((t) => [plain(t.name), t.limit, plain(t.reset), t.windows, t.responses429, plain(t.findings), t.latency]), [3]),
    );
  }
  if (rl.first429 !== null) out.push(`- First 429: request #${rl.first429.index}, sent ${fmtDuration(rl.first429.atMs)} after the start`);
  if (rl.recoveryMs !== null) out.push(`- Recovery after the first rejected window reset: ${fmtDuration(rl.recoveryMs)}`);
  const hv = Object.entries(rl.headerViolations).sort((a, b) => b[1] - a[1]);
  if (hv.length > 0) out.push('', table(['header finding', 'responses'], hv.map(([k, n]) => [plain(k), String(n)]), [1]));
  const shown = rl.windows.slice(-10);
  if (shown.length > 0) {
    out.push(
      '',
      `Last ${shown.length} of ${rl.windows.length + rl.windowsDropped} windows:`,
      '',
      table(
        ['reset', 'limit', 'accepted', 'rejected', 'lowest remaining'],
        shown.map((w) => [plain(w.reset ?? '—'), fmtNumber(w.limit), String(w.accepted), String(w.rejected), fmtNumber(w.minRemaining)]),
        [1, 2, 3, 4],
      ),
    );
  }
  return out;
}

function errorsSection(r: Report): string[] {
  const rows = opKeysOf(r.ops).flatMap((name) =>
    Object.entries(r.ops[name]?.errors ?? {})
      .sort((a, b) => b[1] - a[1])
      .map(([code, n]) => [`\`${name}\``, `\`${cell(code)}\``, String(n)]),
  );
  return ['## Errors by code', '', rows.length === 0 ? 'No errors.' : table(['op', 'code', 'count'], rows, [2])];
}

function violationsSection(r: Report): string[] {
  const t = r.contractViolationTotals;
  if (t.total === 0) return ['## Contract violations', '', 'None.'];
  const out = [
    '## Contract violations',
    '',
    table(
      ['op', 'path', 'expected', 'got', 'count'],
      r.contractViolations.map((v) => [`\`${v.op}\``, `\`${cell(v.path)}\``, plain(v.expected), plain(v.got), String(v.count)]),
      [4],
    ),
  ];
  if (t.droppedDistinct > 0) {
    out.push('', `${t.droppedDistinct} more distinct violations (${t.droppedCount} occurrences) were not listed.`);
  }
  return out;
}

function notificationsSection(r: Report): string[] {
  const n = r.notifications;
  if (n === undefined) return [];
  const rejected = Object.entries(n.rejected).filter(([, v]) => v > 0);
  const out = [
    '## Notifications',
    '',
    `- Event names used: \`${n.eventSet}\` (${Object.entries(n.events).map(([k, v]) => `${plain(k)} ${v}`).join(', ') || 'none received'})`,
    `- ${n.received} deliveries accepted; ${n.expected} completions seen by the client, ${n.matched} notified, ` +
      `**${n.missing} missing** after ${fmtDuration(n.graceMs)}${n.late > 0 ? ` (${n.late} arrived later)` : ''}${n.awaiting > 0 ? `, ${n.awaiting} still awaited` : ''}`,
    `- ${n.duplicate} duplicate, ${n.outOfOrder} out of order (completed before started), ${n.statusMismatch} with a status other than the client saw, ` +
      `${n.unsolicited} for runs the client never saw`,
    `- Refused: ${rejected.length === 0 ? 'none' : rejected.map(([k, v]) => `${plain(k)} ${v}`).join(', ')}`,
    `- Triggers: ${n.triggers.accepted} accepted, ${n.triggers.matchedByRunId} matched by run id, ${n.triggers.matchedByFlowOrder} by flow and time order, ${n.triggers.unresolved} unresolved`,
  ];
  const rows: string[][] = [];
  if (n.deliveryLatencyMs.count > 0) rows.push(pctRow('after the client saw the completion', n.deliveryLatencyMs));
  if (n.leadMs.count > 0) rows.push(pctRow('before the client saw it (lead)', n.leadMs));
  if (rows.length > 0) {
    out.push('', table(['delivery latency', 'count', 'p50', 'p90', 'p95', 'p99', 'p99.9', 'max', 'mean'], rows, [1, 2, 3, 4, 5, 6, 7, 8]));
  }
  return out;
}

function asyncRunsSection(r: Report): string[] {
  const a = r.asyncRuns;
  if (a === undefined) return [];
  const f = a.final;
  const p = a.progress;
  const range = p.min === null ? 'no progress values seen' : `progress seen from ${fmtNumber(p.min)} to ${fmtNumber(p.max)}`;
  const out = [
    '## Asynchronous runs',
    '',
    `- Followed ${a.followed.run} runs and ${a.followed.trigger} triggers by polling every ${fmtDuration(a.pollIntervalMs)} ` +
      `(completion is seen up to one interval late: mean bias ${fmtDuration(a.meanBiasMs)}); not followed: ${a.notFollowed.cap} over the cap, ${a.notFollowed.stopped} after the stop`,
    `- Ended: ${f.completed} completed, ${f.failed} failed, ${f.timeout} timed out, ${f.abandoned} abandoned, ${f.error} unreadable`,
    `- ${a.polls.total} polls (per finished run: mean ${fmtNumber(a.pollsPerRun.mean)}, max ${a.pollsPerRun.max}); ${range}` +
      `${p.atCompletion.min === null ? '' : ` (at completion ${fmtNumber(p.atCompletion.min)}–${fmtNumber(p.atCompletion.max)})`}; ` +
      `${p.monotonic ? 'progress never went down' : `**progress went down ${p.decreases} times in ${p.runsWithDecrease} runs**`}` +
      `${p.outside0to100 > 0 ? `; ${p.outside0to100} values outside 0–100` : ''}${p.nonInteger > 0 ? `; ${p.nonInteger} not integers` : ''}`,
    `- Triggers: ${a.triggers.completedByPolling} seen finishing by polling, ${a.triggers.completedByNotification} by notification`,
  ];
  const rows: string[][] = [];
  if (a.timeToCompletionMs.count > 0) rows.push(pctRow('time to completion (polled)', a.timeToCompletionMs));
  if (a.triggers.timeToCompletionMs.count > 0) rows.push(pctRow('trigger to completion', a.triggers.timeToCompletionMs));
  if (rows.length > 0) out.push('', table(['measure', 'count', 'p50', 'p90', 'p95', 'p99', 'p99.9', 'max', 'mean'], rows, [1, 2, 3, 4, 5, 6, 7, 8]));
  return out;
}

function auditSection(r: Report): string[] {
  const tenants = r.audit?.tenants;
  if (tenants !== undefined) {
    const out = ['## Audit', '', 'One audit per tenant (token), each read with its own token: the figures of different accounts are not one comparison.'];
    for (const t of tenants) {
      out.push('', `### ${t.scenarios.map(plain).join(', ')}`);
      const body = auditBody(t.usage, t.sessions);
      out.push(...(body.length > 0 ? body : ['', 'No runs finished: nothing to compare.']));
    }
    return out;
  }
  const u = r.audit?.usage;
  const s = r.audit?.sessions;
  if (u === undefined && s === undefined) return [];
  return ['## Audit', ...auditBody(u, s)];
}

/** One account's audit: usage against what the client saw, and session histories. */
function auditBody(u: NonNullable<Report['audit']>['usage'], s: NonNullable<Report['audit']>['sessions']): string[] {
  const out: string[] = [];
  if (u !== undefined) {
    const fig = (c: { totalRuns: number; successfulRuns: number; failedRuns: number; totalTokens: number } | null): string[] =>
      c === null ? ['—', '—', '—', '—'] : [String(c.totalRuns), String(c.successfulRuns), String(c.failedRuns), String(c.totalTokens)];
    const scope = u.filterIgnored === true ? 'account: the service ignores `flow_id` (each per-flow answer was its whole account), so the account was read once' : u.scope;
    const verdict =
      u.forbidden === true
        ? `this token may not read usage (the service refused it: ${u.errors.map(plain).join('; ') || 'refused'}); nothing was compared, which is not a disagreement`
        : usageVerdict(u).text;
    out.push(
      '',
      `Usage analytics from ${u.window.start} to ${u.window.end} (${scope}): ${verdict}. ` + 'The service may count other traffic of the account.',
      '',
      table(
        ['', 'total_runs', 'successful_runs', 'failed_runs', 'total_tokens'],
        [['service', ...fig(u.service)], ['client', ...fig(u.client)], ['difference', ...fig(u.diff)]],
        [1, 2, 3, 4],
      ),
    );
    const unknown = u.clientUnknown;
    if (unknown.runsWithoutTokens + unknown.unresolved > 0) {
      out.push('', `The client could not count everything: ${unknown.runsWithoutTokens} finished runs without a token count, ${unknown.unresolved} runs whose end it never learnt.`);
    }
    if (u.errors.length > 0 && u.forbidden !== true) out.push('', `Queries that failed: ${u.errors.map(plain).join('; ')}`);
  }
  if (s !== undefined) {
    out.push(
      '',
      `Sessions: ${s.sessions} sessions, ${s.runs} runs, ${s.checked} histories read; ${s.inOrder} in the order sent, ` +
        `${s.alternating} alternating user/assistant, ${s.countMatches} with the expected message count` +
        `${s.concurrent > 0 ? `; ${s.concurrent} had overlapping runs (order not judged)` : ''}.`,
    );
    if (s.problems.length > 0) {
      out.push('', table(['session', 'check', 'expected', 'got'], s.problems.map((p) => [`\`${cell(p.sessionId)}\``, p.check, plain(p.expected), plain(p.got)])));
    }
  }
  return out;
}

/** Renders the report as Markdown. */
export function renderMarkdown(report: Report): string {
  const sections = [
    [`# flowgauge report: ${plain(report.scenario)}`],
    verdict(report),
    runSection(report),
    journeyMarkdown(report),
    opsSection(report),
    streamSection(report),
    rateLimitSection(report),
    errorsSection(report),
    violationsSection(report),
    notificationsSection(report),
    asyncRunsSection(report),
    auditSection(report),
  ].filter((s) => s.length > 0);
  return `${sections.map((s) => s.join('\n')).join('\n\n')}\n`;
}
