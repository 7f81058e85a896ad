/**
 * The views of `audit`: the service's usage analytics and session histories against what the
 * client saw, one audit per tenant when several. The usage verdict is decided once: agreement, a
 * token that may not read usage, an account-wide answer (every tenant's usage, the service's
 * design), a token difference only of runs the client saw without their usage, or a difference.
 */
import { badge, code, esc, facts, p, section, table, type Cell } from '../html-parts.js';
import { mdCell as cell, mdPlain as plain, mdTable } from '../markdown-kit.js';
import type { Report, UsageAuditReport, UsageCounts } from '../model.js';
import type { Paint, SectionViews, SummaryContext } from './view-kit.js';

/** The usage audit's verdict. */
interface UsageVerdict {
  /** False only for a difference (or figures that could not be read). */
  readonly ok: boolean;
  /** The sentence, without the figures. */
  readonly text: string;
}

/**
 * True when the service and the client agree on every run and differ only in tokens that runs
 * the client saw finish without their usage (asynchronous ones) can account for.
 */
function onlyUnknownTokensDiffer(u: UsageAuditReport): boolean {
  const d = u.diff;
  return d !== null && u.errors.length === 0 && d.totalRuns === 0 && d.successfulRuns === 0 && d.failedRuns === 0 && d.totalTokens > 0 && (u.clientUnknown?.runsWithoutTokens ?? 0) > 0;
}

/** The verdict of one usage audit. */
function usageVerdict(u: UsageAuditReport): UsageVerdict {
  if (u.forbidden === true) return { ok: true, text: 'not compared: this token may not read usage, which is not a disagreement' };
  if (u.exact) return { ok: true, text: 'the service agrees with the client exactly' };
  if (u.accountWide === true) return { ok: true, text: "the service answered with the whole account's usage (every tenant's runs), and it matches the tenants' sum: not a disagreement" };
  if (onlyUnknownTokensDiffer(u)) {
    const n = u.clientUnknown?.runsWithoutTokens ?? 0;
    return { ok: true, text: `the service agrees on every run; its ${u.diff?.totalTokens ?? 0} more tokens are of the ${n} run${n === 1 ? '' : 's'} the client saw finish without their usage, not a difference` };
  }
  if (u.diff === null) return { ok: false, text: 'the service could not be read' };
  return { ok: false, text: 'the service and the client differ' };
}

function summaryAudit(r: Report, { paint }: SummaryContext): string[] {
  const out: string[] = [];
  const audit = r.audit;
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
function usageAuditText(u: UsageAuditReport, paint: Paint): string {
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

function markdownAudit(r: Report): string[] {
  const tenants = r.audit?.tenants;
  if (tenants !== undefined) {
    const out = ['## Audit', '', 'One audit per tenant (token), each read with its own token: the figures of different accounts are not one comparison.'];
    for (const t of tenants) {
      out.push('', `### ${t.scenarios.map(plain).join(', ')}`);
      const body = markdownAuditBody(t.usage, t.sessions);
      out.push(...(body.length > 0 ? body : ['', 'No runs finished: nothing to compare.']));
    }
    return out;
  }
  const u = r.audit?.usage;
  const s = r.audit?.sessions;
  if (u === undefined && s === undefined) return [];
  return ['## Audit', ...markdownAuditBody(u, s)];
}

/** One account's audit: usage against what the client saw, and session histories. */
function markdownAuditBody(u: NonNullable<Report['audit']>['usage'], s: NonNullable<Report['audit']>['sessions']): string[] {
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
      mdTable(
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
      out.push('', mdTable(['session', 'check', 'expected', 'got'], s.problems.map((p) => [`\`${cell(p.sessionId)}\``, p.check, plain(p.expected), plain(p.got)])));
    }
  }
  return out;
}

function htmlAudit(r: Report): string {
  const tenants = r.audit?.tenants;
  if (tenants !== undefined) {
    const body = [p('One audit per tenant (token), each read with its own token: the figures of different accounts are not one comparison.')];
    for (const t of tenants) {
      const part = auditHtmlBody(t.usage, t.sessions, 'h4');
      body.push(`<h3>${esc(t.scenarios.join(', '))}</h3>`, ...(part.length > 0 ? part : [p('No runs finished: nothing to compare.')]));
    }
    return section('audit', 'Audit', body);
  }
  const u = r.audit?.usage;
  const s = r.audit?.sessions;
  if (u === undefined && s === undefined) return '';
  return section('audit', 'Audit', auditHtmlBody(u, s, 'h3'));
}

function usageCells(c: UsageCounts | null): string[] {
  return c === null ? ['—', '—', '—', '—'] : [String(c.totalRuns), String(c.successfulRuns), String(c.failedRuns), String(c.totalTokens)];
}

/** One account's audit: usage against what the client saw, and session histories. */
function auditHtmlBody(u: NonNullable<Report['audit']>['usage'], s: NonNullable<Report['audit']>['sessions'], h: 'h3' | 'h4'): string[] {
  const body: string[] = [];
  if (u !== undefined) {
    const scope = u.filterIgnored === true ? 'account: the service ignores flow_id (each per-flow answer was its whole account), so the account was read once' : u.scope;
    const verdict: Cell =
      u.forbidden === true
        ? `not compared: this token may not read usage (${u.errors.join('; ') || 'refused'}); this is not a disagreement`
        : badge(usageVerdict(u).ok, usageVerdict(u).text);
    body.push(
      `<${h}>Usage analytics</${h}>`,
      facts([
        ['window', `${u.window.start} to ${u.window.end} (${scope})`],
        ['verdict', verdict],
      ]),
      table(
        ['', 'total_runs', 'successful_runs', 'failed_runs', 'total_tokens'],
        [['service', ...usageCells(u.service)], ['client', ...usageCells(u.client)], ['difference', ...usageCells(u.diff)]],
        [1, 2, 3, 4],
      ),
      p('The service may count other traffic of the account.', 'caption'),
    );
    const unknown = u.clientUnknown;
    if (unknown.runsWithoutTokens + unknown.unresolved > 0) {
      body.push(p(`The client could not count everything: ${unknown.runsWithoutTokens} finished runs without a token count, ${unknown.unresolved} runs whose end it never learnt.`));
    }
    if (u.errors.length > 0 && u.forbidden !== true) body.push(p(`Queries that failed: ${u.errors.join('; ')}`));
  }
  if (s !== undefined) {
    body.push(
      `<${h}>Sessions</${h}>`,
      facts([
        ['sessions / runs / histories read', `${s.sessions} / ${s.runs} / ${s.checked}`],
        ['in the order sent', String(s.inOrder)],
        ['alternating user/assistant', String(s.alternating)],
        ['expected message count', String(s.countMatches)],
        ['overlapping runs (order not judged)', String(s.concurrent)],
      ]),
    );
    if (s.problems.length > 0) body.push(table(['session', 'check', 'expected', 'got'], s.problems.map((x) => [code(x.sessionId), x.check, x.expected, x.got])));
  }
  return body;
}

/** The views of `audit` (a section only runs that audited have). */
export const auditViews: SectionViews = {
  summary: { audit: summaryAudit },
  markdown: { audit: markdownAudit },
  html: { audit: htmlAudit },
};
