/**
 * The sections journeys and runs of several scenarios add to what a person reads: iterations,
 * checks, named steps, each scenario's own figures, and the generator's warnings. One place
 * decides what they say; the console summary, report.md and report.html each render it.
 */
import { fmtAvailability, fmtDuration, fmtNumber } from './format.js';
import { esc, section, table } from './html-parts.js';
import type { Report } from './model.js';
import { promptLengthLines, promptLengthTables } from './prompt-length-view.js';

/** One row of the scenarios table. */
interface ScenarioRow {
  readonly name: string;
  readonly started: number;
  readonly ratePerS: number;
  readonly availability: string;
  readonly responses429: number;
  readonly premature429: number;
  readonly iterations: string;
}

function scenarioRows(r: Report): ScenarioRow[] {
  return Object.entries(r.scenarios ?? {}).map(([name, s]) => ({
    name,
    started: s.load.started,
    ratePerS: s.load.achievedRatePerS,
    availability: fmtAvailability(s.slo).text,
    responses429: s.rateLimit.responses429,
    premature429: s.rateLimit.premature429,
    iterations: s.iterations === undefined ? '–' : `${s.iterations.completed}/${s.iterations.started} (${s.iterations.failed} failed)`,
  }));
}

function iterationsLine(r: Report): string | undefined {
  const it = r.iterations;
  if (it === undefined) return undefined;
  return (
    `iterations  ${it.started} started, ${it.completed} completed, ${it.failed} failed, ${it.interrupted} interrupted, ${it.dropped} dropped; ` +
    `duration p50 ${fmtDuration(it.durationMs.p50)} p95 ${fmtDuration(it.durationMs.p95)} p99 ${fmtDuration(it.durationMs.p99)}`
  );
}

/** Example text on one line with no control characters (it may have come from the server). */
const oneLine = (s: string): string => s.replace(/\r?\n/g, '⏎').replace(/[\u0000-\u001f\u007f-\u009f]/g, '�');

/** Rows of failed checks' examples: [check, expected, actual]. */
const exampleRows = (r: Report): string[][] =>
  Object.entries(r.checks ?? {}).flatMap(([name, c]) => (c.examples ?? []).map((e) => [name, oneLine(e.expected), oneLine(e.actual)]));

const checkShare = (c: { passes: number; fails: number }): string => {
  const all = c.passes + c.fails;
  return all === 0 ? '–' : `${fmtNumber(Math.round((c.passes / all) * 1000) / 10)} %`;
};

/** Lines for the console summary (plain text; empty when the run had none of these). */
export function journeySummaryLines(r: Report): string[] {
  const lines: string[] = [];
  const it = iterationsLine(r);
  if (it !== undefined) lines.push(it);
  for (const e of r.iterations?.errors ?? []) lines.push(`  failed ×${e.count}: ${e.message}`);
  lines.push(...promptLengthLines(r));
  for (const [name, c] of Object.entries(r.checks ?? {})) {
    lines.push(`${c.fails === 0 ? '✓' : '✗'} check ${name}: ${c.passes} passed, ${c.fails} failed (${checkShare(c)})`);
    for (const e of c.examples ?? []) lines.push(`    expected: ${oneLine(e.expected)} · actual: ${oneLine(e.actual)}`);
  }
  const rows = scenarioRows(r);
  if (rows.length > 0) {
    lines.push('scenarios:');
    for (const s of rows) {
      lines.push(`  ${s.name}: ${s.started} started at ${fmtNumber(s.ratePerS)}/s, availability ${s.availability}, ${s.responses429} × 429 (${s.premature429} premature), iterations ${s.iterations}`);
    }
  }
  for (const w of r.warnings ?? []) lines.push(`WARNING ${w.code}: ${w.message}`);
  return lines.length === 0 ? [] : [...lines, ''];
}

/** Markdown table cell text: no pipes, no markup. */
const md = (s: string): string => s.replace(/[|\\<>&*_`[\]]/g, (c) => `\\${c}`).replace(/\r?\n/g, ' ');

/** report.md sections (Markdown lines; empty when the run had none of these). */
export function journeyMarkdown(r: Report): string[] {
  const out: string[] = [];
  if (r.warnings !== undefined && r.warnings.length > 0) {
    out.push('## Warnings', '', ...r.warnings.map((w) => `- **${md(w.code)}**: ${md(w.message)}`), '');
  }
  const rows = scenarioRows(r);
  if (rows.length > 0) {
    out.push('## Scenarios', '', '| scenario | started | rate/s | availability | 429s | premature 429s | iterations |', '|---|---:|---:|---:|---:|---:|---|');
    for (const s of rows) out.push(`| ${md(s.name)} | ${s.started} | ${fmtNumber(s.ratePerS)} | ${s.availability} | ${s.responses429} | ${s.premature429} | ${s.iterations} |`);
    out.push('');
  }
  const it = r.iterations;
  if (it !== undefined) {
    out.push('## Iterations', '', `${it.started} started, ${it.completed} completed, ${it.failed} failed, ${it.interrupted} interrupted, ${it.dropped} dropped.`, '');
    out.push('| duration | p50 | p95 | p99 | max |', '|---|---:|---:|---:|---:|', `| iteration | ${fmtDuration(it.durationMs.p50)} | ${fmtDuration(it.durationMs.p95)} | ${fmtDuration(it.durationMs.p99)} | ${fmtDuration(it.durationMs.max)} |`);
    for (const [name, p] of Object.entries(r.steps ?? {})) out.push(`| step ${md(name)} | ${fmtDuration(p.p50)} | ${fmtDuration(p.p95)} | ${fmtDuration(p.p99)} | ${fmtDuration(p.max)} |`);
    out.push('');
    if (it.errors.length > 0) out.push('| failure | count |', '|---|---:|', ...it.errors.map((e) => `| ${md(e.message)} | ${e.count} |`), '');
  }
  const prompts = promptLengthTables(r);
  if (prompts.length > 0) out.push('## Stream timing by prompt length', '');
  for (const t of prompts) {
    out.push(`${t.line}.`, '', `| ${t.head.join(' | ')} |`, `|---|${t.head.slice(1).map(() => '---:').join('|')}|`, ...t.rows.map((row) => `| ${row.join(' | ')} |`), '');
  }
  const checks = Object.entries(r.checks ?? {});
  if (checks.length > 0) {
    out.push('## Checks', '', '| check | passed | failed | pass rate |', '|---|---:|---:|---:|', ...checks.map(([n, c]) => `| ${md(n)} | ${c.passes} | ${c.fails} | ${checkShare(c)} |`), '');
    const examples = exampleRows(r);
    if (examples.length > 0) out.push('Failed checks, what was expected and what was seen:', '', '| check | expected | actual |', '|---|---|---|', ...examples.map((row) => `| ${row.map(md).join(' | ')} |`), '');
  }
  return out;
}

/** report.html sections (empty string when the run had none of these). */
export function journeyHtml(r: Report): string {
  const parts: string[] = [];
  if (r.warnings !== undefined && r.warnings.length > 0) {
    parts.push(section('warnings', 'Warnings', [`<ul>${r.warnings.map((w) => `<li><b>${esc(w.code)}</b>: ${esc(w.message)}</li>`).join('')}</ul>`]));
  }
  const rows = scenarioRows(r);
  if (rows.length > 0) {
    parts.push(
      section('scenarios', 'Scenarios', [
        table(['scenario', 'started', 'rate/s', 'availability', '429s', 'premature 429s', 'iterations'], rows.map((s) => [s.name, String(s.started), fmtNumber(s.ratePerS), s.availability, String(s.responses429), String(s.premature429), s.iterations]), [1, 2, 3, 4, 5]),
      ]),
    );
  }
  const it = r.iterations;
  if (it !== undefined) {
    const durations = [['iteration', it.durationMs] as const, ...Object.entries(r.steps ?? {}).map(([n, p]) => [`step ${n}`, p] as const)];
    parts.push(
      section('iterations', 'Iterations', [
        `<p>${esc(`${it.started} started, ${it.completed} completed, ${it.failed} failed, ${it.interrupted} interrupted, ${it.dropped} dropped.`)}</p>`,
        table(['duration', 'p50', 'p95', 'p99', 'max'], durations.map(([n, p]) => [n, fmtDuration(p.p50), fmtDuration(p.p95), fmtDuration(p.p99), fmtDuration(p.max)]), [1, 2, 3, 4]),
        ...(it.errors.length > 0 ? [table(['failure', 'count'], it.errors.map((e) => [e.message, String(e.count)]), [1])] : []),
      ]),
    );
  }
  const prompts = promptLengthTables(r);
  if (prompts.length > 0) {
    parts.push(
      section(
        'prompt-length',
        'Stream timing by prompt length',
        prompts.flatMap((t) => [`<p>${esc(t.line)}.</p>`, table([...t.head], t.rows.map((row) => [...row]), t.head.slice(1).map((_, i) => i + 1))]),
      ),
    );
  }
  const checks = Object.entries(r.checks ?? {});
  if (checks.length > 0) {
    const examples = exampleRows(r);
    parts.push(
      section('checks', 'Checks', [
        table(['check', 'passed', 'failed', 'pass rate'], checks.map(([n, c]) => [n, String(c.passes), String(c.fails), checkShare(c)]), [1, 2, 3]),
        ...(examples.length > 0 ? [`<p>${esc('Failed checks, what was expected and what was seen:')}</p>`, table(['check', 'expected', 'actual'], examples)] : []),
      ]),
    );
  }
  return parts.join('\n');
}
