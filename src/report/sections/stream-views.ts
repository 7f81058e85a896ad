/**
 * The views of `stream`: the timings an LLM benchmark's user looks for (TTFT, ITL, TPOT, output
 * tokens per second), the streams delivered in one burst (which those figures leave out), and
 * the same timings by prompt length: per unit (words or a tokenizer's tokens) and band. A report
 * written before the unit could be chosen has TTFT by words only (`ttftByInputWords`); it is
 * shown as it was.
 */
import type { Pct } from '../../collect/histogram.js';
import { STREAM_TIMINGS, plainStreamLabel } from '../../core/stream-timings.js';
import { fmtDuration, fmtNumber, streamTimingFormat } from '../format.js';
import type { HtmlChartData } from '../html-data.js';
import { chart, esc, p, section, table, type Cell } from '../html-parts.js';
import { mdPctRow, mdPlain as plain, mdTable } from '../markdown-kit.js';
import type { Report, StreamReport } from '../model.js';
import type { SectionViews } from './view-kit.js';

/**
 * The sentence naming the streams delivered at once (all their tokens in one read), or undefined
 * when there were none: they are counted, and kept out of ITL, TPOT and tokens per second.
 */
function burstSentence(s: Pick<StreamReport, 'count' | 'deliveredAtOnce'>): string | undefined {
  const n = s.deliveredAtOnce ?? 0;
  if (n === 0) return undefined;
  const rest = s.count - n;
  const of = rest === 0 ? 'so no stream is left to measure them' : `which are of the other ${rest}`;
  return (
    `${n} of ${s.count} stream${s.count === 1 ? '' : 's'} delivered all ${n === 1 ? 'its' : 'their'} tokens in one read (a burst: not streamed to flowgauge); ` +
    `left out of inter-token latency, TPOT and tokens per second, ${of}`
  );
}

// A figure with no value is a dash, never a 0 that reads as measured.
const durations = (name: string, x: Pct): string => (x.count === 0 ? `${name} —` : `${name} p50 ${fmtDuration(x.p50)} p99 ${fmtDuration(x.p99)}`);

/** The console's stream lines: timings, then the bursts when there were any. */
function summaryStream(r: Report): string[] {
  const s = r.stream;
  if (s.count === 0) return [];
  const perS = s.tokensPerS;
  const rate = perS.count === 0 ? '—' : `p50 ${fmtNumber(perS.p50)} p99 ${fmtNumber(perS.p99)} mean ${fmtNumber(perS.mean)}`;
  const lines = [
    `stream  ${s.completed}/${s.count} complete, ${s.tokens} tokens; ${durations('TTFT', s.ttftMs)}; ${durations('ITL', s.itlMs)}`,
    `        ${durations('TPOT', s.tpotMs)}; output tokens/s per stream ${rate}`,
  ];
  const burst = burstSentence(s);
  if (burst !== undefined) lines.push(`bursts  ${burst}`);
  return lines;
}

function markdownStream(r: Report): string[] {
  const s = r.stream;
  if (s.count === 0) return [];
  const rows = STREAM_TIMINGS.flatMap((t) => {
    const x = s[t.field] as Pct | undefined;
    return x === undefined || x.count === 0 ? [] : [mdPctRow(t.label, x, streamTimingFormat(t))];
  });
  const burst = burstSentence(s);
  return [
    '## Stream timing',
    '',
    `${s.count} streams: ${s.completed} completed, ${s.incomplete} incomplete; ${s.tokens} tokens, ` +
      `${s.tokenCountMismatches} token-count mismatches with \`usage.completion_tokens\`.`,
    '',
    ...(burst === undefined ? [] : [`${burst}.`, '']),
    mdTable(['timing', 'count', 'p50', 'p90', 'p95', 'p99', 'p99.9', 'max', 'mean'], rows, [1, 2, 3, 4, 5, 6, 7, 8]),
  ];
}

/** Stream timing table and the TTFT / ITL percentile curves. */
function htmlStream(r: Report, data: HtmlChartData): string {
  const s = r.stream;
  if (s.count === 0) return section('stream', 'Stream timing', [p('No streams in this run.', 'empty')]);
  const rows: Cell[][] = STREAM_TIMINGS.flatMap((t) => {
    const x = s[t.field] as Pct | undefined;
    if (x === undefined || x.count === 0) return [];
    return [[plainStreamLabel(t), String(x.count), ...[x.p50, x.p90, x.p95, x.p99, x.p999, x.max].map(streamTimingFormat(t))]];
  });
  const burst = burstSentence(s);
  const body = [
    p(`${s.count} streams: ${s.completed} completed, ${s.incomplete} incomplete; ${s.tokens} tokens, ${s.tokenCountMismatches} token-count mismatches with usage.completion_tokens.`),
    ...(burst === undefined ? [] : [p(`${burst}.`, 'note')]),
    table(['timing', 'count', 'p50', 'p90', 'p95', 'p99', 'p99.9', 'max'], rows, [1, 2, 3, 4, 5, 6, 7]),
  ];
  if (data.distributions.length > 0) {
    body.push(
      '<h3>Distributions</h3>',
      `<div class="charts">${data.distributions
        .map((d) => chart(`chart-dist-${d.key.replace(/[^A-Za-z0-9]/g, '-')}`, `${d.label}: percentile curve`, `${d.count} values; x is the percentile on a log scale (90 %, 99 %, 99.9 %, …).`))
        .join('')}</div>`,
    );
  }
  return section('stream', 'Stream timing', body);
}

/** One table of prompt lengths in one unit. */
interface PromptLengthTable {
  /** `prompt length (tokens (cl100k_base)): p50 256, p95 1024, max 1024 over 30 streams; output tokens p50 …`. */
  readonly line: string;
  readonly head: readonly string[];
  /** Cells; every column but the first is a number. */
  readonly rows: readonly (readonly string[])[];
}

/** The unit as a reader says it. */
const unitNoun = (unit: string): string => (unit === 'words' ? 'words' : `tokens (${unit})`);
const p50p95 = (x: Pct, f: (n: number) => string): string => (x.count === 0 ? '–' : `${f(x.p50)} / ${f(x.p95)}`);
const count = (x: number): string => fmtNumber(x);
const rate = (x: number): string => fmtNumber(Math.round(x * 10) / 10);

/** The prompt-length tables of a report (none when no stream had an input). */
function promptLengthTables(r: Report): PromptLengthTable[] {
  const prompts = r.stream.prompts;
  if (prompts !== undefined) {
    return Object.entries(prompts).flatMap(([unit, u]) => {
      if (u.promptTokens.count === 0) return [];
      const noun = unitNoun(unit);
      const out = u.outputTokens.count === 0 ? '' : `; output ${noun} p50 ${count(u.outputTokens.p50)}, mean ${count(u.outputTokens.mean)}`;
      return [
        {
          line: `prompt length (${noun}): p50 ${count(u.promptTokens.p50)}, p95 ${count(u.promptTokens.p95)}, max ${count(u.promptTokens.max)} over ${u.promptTokens.count} streams${out}`,
          head: [`prompt ${unit === 'words' ? 'words' : 'tokens'}`, 'streams', 'TTFT p50 / p95', 'ITL p50 / p95', 'TPOT p50 / p95', 'output tok/s p50', 'output tokens p50 / mean'],
          rows: Object.entries(u.byBand).map(([band, b]) => [
            band,
            String(b.promptTokens.count),
            p50p95(b.ttftMs, fmtDuration),
            p50p95(b.itlMs, fmtDuration),
            p50p95(b.tpotMs, fmtDuration),
            b.tokensPerS.count === 0 ? '–' : rate(b.tokensPerS.p50),
            b.outputTokens.count === 0 ? '–' : `${count(b.outputTokens.p50)} / ${count(b.outputTokens.mean)}`,
          ]),
        },
      ];
    });
  }
  const w = r.stream.inputWords;
  if (w === undefined || w.count === 0) return [];
  return [
    {
      line: `prompt length (words): p50 ${count(w.p50)}, p95 ${count(w.p95)}, max ${count(w.max)} over ${w.count} streams`,
      head: ['prompt words', 'streams', 'TTFT p50 / p95'],
      rows: Object.entries(r.stream.ttftByInputWords ?? {}).map(([band, x]) => [band, String(x.count), p50p95(x, fmtDuration)]),
    },
  ];
}

/** Console lines: the line of each unit, then one per band. */
function summaryPromptLengths(r: Report): string[] {
  return promptLengthTables(r).flatMap((t) => [
    t.line,
    ...t.rows.map((row) => `  ${t.head[0] ?? ''} ${row[0] ?? ''}: ${row[1] ?? ''} streams; ${t.head.slice(2).map((h, i) => `${h} ${row[i + 2] ?? ''}`).join('; ')}`),
  ]);
}

function markdownPromptLengths(r: Report): string[] {
  const prompts = promptLengthTables(r);
  if (prompts.length === 0) return [];
  return [
    '## Stream timing by prompt length',
    ...prompts.flatMap((t) => ['', `${plain(t.line)}.`, '', mdTable(t.head.map(plain), t.rows.map((row) => row.map(plain)), t.head.slice(1).map((_, i) => i + 1))]),
  ];
}

function htmlPromptLengths(r: Report): string {
  const prompts = promptLengthTables(r);
  if (prompts.length === 0) return '';
  return section(
    'prompt-length',
    'Stream timing by prompt length',
    prompts.flatMap((t) => [`<p>${esc(t.line)}.</p>`, table([...t.head], t.rows.map((row) => [...row]), t.head.slice(1).map((_, i) => i + 1))]),
  );
}

/** The views of `stream`. */
export const streamViews: SectionViews = {
  summary: { stream: summaryStream, promptLengths: summaryPromptLengths },
  markdown: { stream: markdownStream, promptLengths: markdownPromptLengths },
  html: { stream: htmlStream, promptLengths: htmlPromptLengths },
};
